internal import CCurl
internal import CTidingsShims
import TidingsIP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request on a libcurl easy handle, with the state its callbacks fill
/// in. Owned by `CurlMultiDriver` and used only on the driver thread;
/// libcurl's callbacks receive it as an unretained pointer, which is valid
/// because the driver keeps a strong reference until the handle has left the
/// multi handle. The handle itself belongs to the driver, which resets and
/// reuses it for a later request once this one is complete.
final class CurlEasyTransfer {
    typealias Completion = @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void

    let id: UInt64
    let handle: UnsafeMutableRawPointer
    private let completion: Completion
    private let ssrfGuard: SSRFGuard
    let maxResponseSize: Int
    let truncatesResponseBody: Bool
    let timeout: Duration
    let connectTimeout: Duration
    let errorBuffer: UnsafeMutablePointer<CChar>
    var headerList: UnsafeMutablePointer<curl_slist>?

    private(set) var body: [UInt8] = []
    private(set) var headers: [(name: String, value: String)] = []
    /// Set when the write callback aborted because the body grew past the limit.
    private(set) var exceededResponseSize = false
    /// Set when the snippet was full and the transfer stopped there
    /// (`truncatesResponseBody`).
    private(set) var truncatedBody = false
    /// The first connect the SSRF guard refused, reported instead of libcurl's
    /// generic "could not connect".
    private(set) var connectRefusal: HTTPClientError?

    /// Configures `handle` (fresh or reset) for the request.
    init(
        id: UInt64,
        handle: UnsafeMutableRawPointer,
        request: HTTPClientRequest,
        configuration: HTTPClientConfiguration,
        completion: @escaping Completion
    ) throws(HTTPClientError) {
        self.id = id
        self.handle = handle
        self.completion = completion
        self.ssrfGuard = SSRFGuard(
            allowPrivateTargets: configuration.allowPrivateTargets || configuration.urlSource == .operatorConfiguration,
            allowedAddresses: configuration.allowedAddresses
        )
        self.maxResponseSize = request.maxResponseSize ?? configuration.maxResponseSize
        self.truncatesResponseBody = request.truncatesResponseBody
        self.timeout = request.timeout ?? configuration.timeout
        self.connectTimeout = configuration.connectTimeout
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        // From here on deinit runs if configuration throws, freeing everything.
        try configure(request: request, configuration: configuration)
    }

    /// Runs once the handle is out of the multi handle and reset or freed
    /// (neither reads the header list or error buffer again).
    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Calls the completion exactly once with what the transfer produced.
    /// Must be called after the handle left the multi handle.
    func complete(with code: CURLcode) {
        completion(result(for: code))
    }

    func fail(_ error: HTTPClientError) {
        completion(.failure(error))
    }

    /// libcurl's own text for the last failure, empty when it wrote none.
    var errorText: String {
        String(cString: errorBuffer)
    }

    // MARK: Callback bodies (see CurlEasyTransfer+Callbacks.swift)

    /// Appends decoded body bytes; false aborts the transfer once the body
    /// would pass the limit: a failure, or the end of a truncating request
    /// (its snippet is full, and reading on would only cost the driver
    /// thread time that every other transfer waits for).
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard body.count + chunk.count <= maxResponseSize else {
            if truncatesResponseBody {
                body.append(contentsOf: chunk.prefix(max(maxResponseSize - body.count, 0)))
                truncatedBody = true
            } else {
                exceededResponseSize = true
            }
            return false
        }
        body.append(contentsOf: chunk)
        return true
    }

    /// Collects one raw header line. A status line starts a new response
    /// (interim 1xx or a redirect hop), so only the final response's headers
    /// remain.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        var bytes = ArraySlice(line)
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") {
            bytes = bytes.dropLast()
        }
        guard let first = bytes.first else { return }
        if bytes.starts(with: "HTTP/".utf8) {
            headers.removeAll(keepingCapacity: true)
        } else if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            // Obsolete line folding: the line continues the previous value.
            guard !headers.isEmpty else { return }
            headers[headers.count - 1].value += " " + Self.trimmedText(bytes)
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            headers.append(
                (
                    name: Self.trimmedText(bytes[..<colon]),
                    value: Self.trimmedText(bytes[(colon + 1)...])
                ))
        }
    }

    /// Refuses a connection to a blocked address before a socket exists;
    /// otherwise opens the socket libcurl asked for (close-on-exec, so child
    /// processes never inherit it). Returns nil when refused.
    func openSocket(family: Int32, type: Int32, protocol: Int32, address: IPAddress?) -> Int32? {
        guard let address else {
            recordRefusal(HTTPClientError(code: .blockedAddress, message: "address family \(family) is not IPv4 or IPv6"))
            return nil
        }
        if let refusal = ssrfGuard.check(address) {
            recordRefusal(.blockedAddress(address, refusal))
            return nil
        }
        return socket(family, type | Int32(SOCK_CLOEXEC.rawValue), `protocol`)
    }

    private func recordRefusal(_ error: HTTPClientError) {
        if connectRefusal == nil { connectRefusal = error }
    }

    private static func trimmedText(_ bytes: ArraySlice<UInt8>) -> String {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
            let end = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}
