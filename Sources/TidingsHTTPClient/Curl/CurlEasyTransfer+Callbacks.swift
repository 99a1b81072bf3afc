internal import CCurl
internal import CTidingsShims
import TidingsIP

// libcurl's C callbacks. They capture nothing: the transfer arrives as the
// unretained context pointer set beside each function (see CurlEasyTransfer).

extension CurlEasyTransfer {
    func installCallbacks() throws(HTTPClientError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(CTidingsShims_curl_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, curlReceiveBody))
        try check(CTidingsShims_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
        try check(CTidingsShims_curl_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, curlReceiveHeaderLine))
        try check(CTidingsShims_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
        try check(CTidingsShims_curl_easy_setopt_opensocket_function(handle, curlOpenSocket))
        try check(CTidingsShims_curl_easy_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context))
    }
}

private func transfer(from context: UnsafeMutableRawPointer?) -> CurlEasyTransfer? {
    context.map { Unmanaged<CurlEasyTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private func curlReceiveBody(
    data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let transfer = transfer(from: context) else { return 0 }
    // Returning anything but `length` makes libcurl fail with CURLE_WRITE_ERROR.
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private func curlReceiveHeaderLine(
    data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let transfer = transfer(from: context) else { return 0 }
    transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// Runs for every new connection (every DNS answer tried, every redirect
/// hop); kept-alive connections were checked when they were opened.
private func curlOpenSocket(
    context: UnsafeMutableRawPointer?, purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let transfer = transfer(from: context), let address else { return CURL_SOCKET_BAD }
    let socketAddress = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \.addr)!
    let ipAddress = IPAddress(socketAddress: socketAddress, length: Int(address.pointee.addrlen))
    return transfer.openSocket(
        family: address.pointee.family,
        type: address.pointee.socktype,
        protocol: address.pointee.protocol,
        address: ipAddress
    ) ?? CURL_SOCKET_BAD
}
