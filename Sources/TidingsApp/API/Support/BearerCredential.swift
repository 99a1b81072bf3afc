import TidingsCrypto
import TidingsHTTPServer

/// The token of an `Authorization: Bearer` header, the one way every
/// guarded endpoint (API keys, the admin token, the metrics token) reads it.
enum BearerCredential {
    /// The token, or 401 with a `WWW-Authenticate` challenge.
    static func token(in request: HTTPRequest, missing: String) throws(HTTPError) -> String {
        guard let header = request.headers["Authorization"] else {
            throw unauthorized(missing)
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw unauthorized("The Authorization header must use the Bearer scheme.")
        }
        return String(parts[1]).trimmingWhitespace()
    }

    static func unauthorized(_ detail: String) -> HTTPError {
        HTTPError(.unauthorized, detail: detail, headers: ["WWW-Authenticate": "Bearer realm=\"tidings\""])
    }
}

/// A configured secret token, compared as SHA-256 digests in constant time:
/// fixed-length hashes hide the token's length as well as its content.
struct ExpectedToken: Sendable {
    private let digest: [UInt8]

    init(_ token: String) {
        digest = SHA256.hash(token).bytes
    }

    func matches(_ candidate: String) -> Bool {
        ConstantTime.isEqual(SHA256.hash(candidate).bytes, digest)
    }

    func matches(digest candidate: [UInt8]) -> Bool {
        ConstantTime.isEqual(candidate, digest)
    }
}
