public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A user's connection to a Tidings server: devices, watches, the badge
/// and reading, the sync feed (through ``SyncEngine``) and the live event
/// stream (``events(types:after:)``).
///
/// The API key is a user's key, issued by your own backend through the
/// admin API (`POST /v1/users` or `/v1/users/{id}/keys`); never ship the
/// admin token in an app.
///
/// ```swift
/// let client = TidingsClient(baseURL: URL(string: "https://tidings.example.com")!, apiKey: key)
/// let badge = try await client.badge()
/// ```
public final class TidingsClient: Sendable {
    /// The server's base URL, such as `https://tidings.example.com`.
    public let baseURL: URL
    /// The largest body of a JSON answer the client reads; a larger one is
    /// ``TidingsError/responseTooLarge(limit:)``, stopped as it arrives.
    public let maximumResponseSize: Int

    let apiKey: String
    let transport: HTTPTransport

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - baseURL: The server, without `/v1`.
    ///   - apiKey: The user's API key (`tdg_...`).
    ///   - session: Whose configuration (timeouts, proxies, protocol
    ///     classes, cache policy) the client's requests use. The client
    ///     runs its own session with that configuration, as it reads
    ///     every answer through a delegate.
    ///   - maximumResponseSize: The largest JSON answer read, 8 MiB by
    ///     default (a full page of the sync feed is far smaller).
    public init(baseURL: URL, apiKey: String, session: URLSession = .shared, maximumResponseSize: Int = 8 << 20) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.maximumResponseSize = maximumResponseSize
        transport = HTTPTransport(configuration: session.configuration)
    }

    deinit {
        transport.invalidate()
    }

    // MARK: Requests

    /// A request for `path` (starting with `/v1/`), authorised.
    func request(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil) -> URLRequest {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        let basePath = components.percentEncodedPath
        components.percentEncodedPath = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + path
        components.queryItems = query.isEmpty ? nil : query
        // The base URL was a URL already; only a path segment could break
        // it, and segments are percent-encoded by `pathSegment`.
        var request = URLRequest(url: components.url ?? baseURL)
        request.httpMethod = method
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// An id as one path segment: nothing in it can reach another route
    /// (`.` is encoded too, so no id is a dot segment).
    static func pathSegment(_ id: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-_~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Sends the request and returns the 2xx answer's body; an error status
    /// becomes ``TidingsError/problem(_:)``.
    func data(for request: URLRequest) async throws -> (Int, Data) {
        let (response, body) = try await transport.send(request, limit: maximumResponseSize)
        guard (200..<300).contains(response.statusCode) else {
            throw TidingsError.problem(ProblemDecoding.problem(status: response.statusCode, response: response, body: body))
        }
        return (response.statusCode, body)
    }

    /// Sends the request and decodes the 2xx answer as `T`.
    func decoded<T: Decodable>(_ type: T.Type, for request: URLRequest) async throws -> T {
        let (status, body) = try await data(for: request)
        return try TidingsCoding.decode(type, from: body, status: status)
    }

    /// Sends `value` as the JSON body of `method path` and decodes the answer.
    func decoded<T: Decodable>(_ type: T.Type, _ method: String, _ path: String, sending value: some Encodable) async throws -> T {
        try await decoded(type, for: request(method, path, body: try TidingsCoding.encode(value)))
    }
}
