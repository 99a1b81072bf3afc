internal import CMicroHTTPD
internal import CTidingsShims
import TidingsIP

#if canImport(Glibc)
import Glibc
#endif

/// The current request of one libmicrohttpd connection: reading its head
/// and queueing its answer. Valid only inside the callback that received
/// the handle; nothing read here keeps a pointer into MHD's memory.
struct MicroHTTPDConnection {
    let handle: OpaquePointer

    func headerValue(_ name: String) -> String? {
        MHD_lookup_connection_value(handle, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// How many header fields arrived, their names' and values' total
    /// size, and whether a name is malformed (`RequestFraming`).
    func headerStatistics() -> (count: Int, bytes: Int, hasMalformedName: Bool) {
        var totals = HeaderTotals()
        withUnsafeMutablePointer(to: &totals) { totalsPointer in
            _ = MHD_get_connection_values_n(
                handle, .HEADER_KIND,
                { cls, _, key, keySize, _, valueSize in
                    let totals = cls!.assumingMemoryBound(to: HeaderTotals.self)
                    totals.pointee.count += 1
                    totals.pointee.bytes += keySize + valueSize
                    if let key,
                        key.withMemoryRebound(
                            to: UInt8.self, capacity: keySize,
                            {
                                RequestFraming.isMalformedFieldName(UnsafeBufferPointer(start: $0, count: keySize))
                            })
                    {
                        totals.pointee.hasMalformedName = true
                    }
                    return .YES
                }, totalsPointer)
        }
        return (totals.count, totals.bytes, totals.hasMalformedName)
    }

    func headers() -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { headersPointer in
            _ = MHD_get_connection_values_n(
                handle, .HEADER_KIND,
                { cls, _, key, keySize, value, valueSize in
                    let headers = cls!.assumingMemoryBound(to: HTTPHeaders.self)
                    headers.pointee.add(name: Self.string(key, keySize), value: Self.string(value, valueSize))
                    return .YES
                }, headersPointer)
        }
        return headers
    }

    /// Query parameters, already percent-decoded by libmicrohttpd.
    func queryItems() -> [(String, String)] {
        var items: [(String, String)] = []
        withUnsafeMutablePointer(to: &items) { itemsPointer in
            _ = MHD_get_connection_values_n(
                handle, .GET_ARGUMENT_KIND,
                { cls, _, key, keySize, value, valueSize in
                    let items = cls!.assumingMemoryBound(to: [(String, String)].self)
                    items.pointee.append((Self.string(key, keySize), Self.string(value, valueSize)))
                    return .YES
                }, itemsPointer)
        }
        return items
    }

    /// The values of every header field named `name`, in the order received.
    func headerValues(_ name: String) -> [String] {
        var lookup = HeaderLookup(name: name)
        withUnsafeMutablePointer(to: &lookup) { lookupPointer in
            _ = MHD_get_connection_values_n(
                handle, .HEADER_KIND,
                { cls, _, key, keySize, value, valueSize in
                    let lookup = cls!.assumingMemoryBound(to: HeaderLookup.self)
                    if HTTPHeaders.namesMatch(Self.string(key, keySize), lookup.pointee.name) {
                        lookup.pointee.values.append(Self.string(value, valueSize))
                    }
                    return .YES
                }, lookupPointer)
        }
        return lookup.values
    }

    /// The peer's IP address; nil when libmicrohttpd has none or it is not IP.
    func peerAddress() -> IPAddress? {
        CTidingsShims_MHD_client_address(handle).flatMap { IPAddress(socketAddressOfItsFamily: $0)?.unmapped }
    }

    /// The connection's socket, or nil if libmicrohttpd does not say.
    func socket() -> Int32? {
        let descriptor = CTidingsShims_MHD_connection_socket(handle)
        return descriptor >= 0 ? descriptor : nil
    }

    /// The `ClientConnection` stored when the connection started; nil for
    /// one refused over its client's cap.
    func client() -> ClientConnection? {
        CTidingsShims_MHD_socket_context(handle).map { Unmanaged<ClientConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Hands the response to libmicrohttpd, which copies the body and sends
    /// it (omitting it for HEAD) with its own `Content-Length`, or reads a
    /// stream through `MicroHTTPDCallbacks.streamReader` as it comes, with
    /// chunked transfer coding.
    func queue(_ response: HTTPResponse) -> MHD_Result {
        let created: OpaquePointer?
        if let stream = response.stream {
            let retained = Unmanaged.passRetained(stream)
            created = MHD_create_response_from_callback(
                Self.sizeUnknown, Self.streamBlockSize,
                MicroHTTPDCallbacks.streamReader, retained.toOpaque(), MicroHTTPDCallbacks.streamReleased
            )
            if created == nil { retained.release() }
        } else {
            created = response.body.withUnsafeBytes { body in
                MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let mhdResponse = created else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers where !HTTPHeaders.namesMatch(name, "Content-Length") {
            // MHD refuses values with line breaks; such a header is dropped
            // rather than failing the whole response.
            _ = MHD_add_response_header(mhdResponse, name, value)
        }
        return MHD_queue_response(handle, UInt32(response.status.code), mhdResponse)
    }

    /// MHD_SIZE_UNKNOWN, a macro Swift does not import: chunked coding.
    private static let sizeUnknown = UInt64.max

    /// MHD allocates this much with each callback response, but a chunked
    /// body is read straight into the connection's write buffer, so the
    /// smallest size serves: ten thousand idle streams add no buffers.
    private static let streamBlockSize = 64

    private static func string(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let pointer else { return "" }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    private struct HeaderLookup {
        let name: String
        var values: [String] = []
    }

    private struct HeaderTotals {
        var count = 0
        var bytes = 0
        var hasMalformedName = false
    }
}
