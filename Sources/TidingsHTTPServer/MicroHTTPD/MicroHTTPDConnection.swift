#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import CTidingsShims

/// The current request of one libmicrohttpd connection: reading its head
/// and queueing its answer. Valid only inside the callback that received
/// the handle; nothing read here keeps a pointer into MHD's memory.
struct MicroHTTPDConnection {
    let handle: OpaquePointer

    func headerValue(_ name: String) -> String? {
        MHD_lookup_connection_value(handle, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// How many header fields arrived and their names' and values' total size.
    func headerStatistics() -> (count: Int, bytes: Int) {
        var totals = HeaderTotals()
        withUnsafeMutablePointer(to: &totals) { totalsPointer in
            _ = MHD_get_connection_values_n(handle, .HEADER_KIND, { cls, _, _, keySize, _, valueSize in
                let totals = cls!.assumingMemoryBound(to: HeaderTotals.self)
                totals.pointee.count += 1
                totals.pointee.bytes += keySize + valueSize
                return .YES
            }, totalsPointer)
        }
        return (totals.count, totals.bytes)
    }

    func headers() -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { headersPointer in
            _ = MHD_get_connection_values_n(handle, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
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
            _ = MHD_get_connection_values_n(handle, .GET_ARGUMENT_KIND, { cls, _, key, keySize, value, valueSize in
                let items = cls!.assumingMemoryBound(to: [(String, String)].self)
                items.pointee.append((Self.string(key, keySize), Self.string(value, valueSize)))
                return .YES
            }, itemsPointer)
        }
        return items
    }

    /// The peer's IP address as text.
    func clientAddress() -> String? {
        guard let address = CTidingsShims_MHD_client_address(handle) else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted: UnsafePointer<CChar>?
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafePointer(to: ipv4.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
            }
        case AF_INET6:
            converted = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafePointer(to: ipv6.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) }
            }
        default:
            converted = nil
        }
        guard converted != nil else { return nil }
        let length = text.firstIndex(of: 0) ?? text.count
        return String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Hands the response to libmicrohttpd, which copies the body and sends
    /// it (omitting it for HEAD) with its own `Content-Length`.
    func queue(_ response: HTTPResponse) -> MHD_Result {
        let created = response.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
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

    private static func string(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let pointer else { return "" }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    private struct HeaderTotals {
        var count = 0
        var bytes = 0
    }
}
