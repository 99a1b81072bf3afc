/// VAPID (RFC 8292): how an application server identifies itself to a push
/// service. Each push carries `Authorization: vapid t=<JWT>, k=<public
/// key>`, where the JWT is ES256 with the fixed header
/// `{"typ":"JWT","alg":"ES256"}` and the claims `aud` (the push endpoint's
/// origin), `exp` (at most 24 hours ahead) and `sub` (a `mailto:` or
/// `https:` contact).
///
/// As for every JWT here (`JSONWebToken`), the caller writes the claims
/// JSON with the one JSON writer (TidingsJSON), from values `VAPIDClaims`
/// has validated:
///
///     {"aud":claims.audience,"exp":claims.expiresAt,"sub":claims.subject}
package enum VAPID {
    /// RFC 8292 2: the JWT header, fixed.
    package static let headerJSON = Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8)

    /// The `Authorization` header value: `vapid t=<JWT>, k=<base64url of
    /// the uncompressed public key>`.
    package static func authorization(claimsJSON: [UInt8], key: P256KeyPair) throws(VAPIDError) -> String {
        let token: String
        do {
            token = try JSONWebToken.compact(headerJSON: headerJSON, claimsJSON: claimsJSON, key: SigningKey(es256: key))
        } catch {
            throw .signing("\(error)")
        }
        return "vapid t=\(token), k=\(key.publicKeyBase64URL)"
    }
}

/// The claims of a VAPID token, checked: an audience that is an origin
/// (`https://host[:port]`, or `http://` for a push service on a test
/// network), a subject that is a `mailto:` or `https:` URI of visible
/// ASCII, and an expiry in the next 24 hours. The values are still
/// escaped when written as JSON; the checks keep push services from
/// refusing the token, not JSON safe.
package struct VAPIDClaims: Sendable, Equatable {
    /// RFC 8292 2: `exp` no more than 24 hours after the request.
    package static let maximumLifetimeSeconds: Int64 = 24 * 60 * 60
    /// Longer than any origin or contact address in use.
    package static let maximumLength = 1024

    package let audience: String
    package let subject: String
    /// Seconds since 1970.
    package let expiresAt: Int64

    /// `now` and `expiresAt` in seconds since 1970.
    package init(audience: String, subject: String, expiresAt: Int64, now: Int64) throws(VAPIDError) {
        guard Self.isOrigin(audience) else { throw .audience }
        guard Self.isContact(subject) else { throw .subject }
        guard expiresAt > now else { throw .expiry("must be after now") }
        // Subtracted with the overflow reported: both come from callers.
        let (lifetime, overflow) = expiresAt.subtractingReportingOverflow(now)
        guard !overflow, lifetime <= Self.maximumLifetimeSeconds else { throw .expiry("must be at most 24 hours ahead") }
        self.audience = audience
        self.subject = subject
        self.expiresAt = expiresAt
    }

    /// `scheme://host[:port]`: http or https, a host of letters, digits,
    /// dots and hyphens or a bracketed IPv6 literal, a port of 1 to 5
    /// digits within 1-65535; no user, path, query or fragment.
    static func isOrigin(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength else { return false }
        let rest: ArraySlice<UInt8>
        if bytes.starts(with: "https://".utf8) {
            rest = bytes[8...]
        } else if bytes.starts(with: "http://".utf8) {
            rest = bytes[7...]
        } else {
            return false
        }
        var host = rest
        var port: ArraySlice<UInt8> = []
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = rest[(rest.startIndex + 1)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return false
            }
            host = rest[...close]
            let after = rest[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { return false }
                port = after.dropFirst()
                guard !port.isEmpty else { return false }
            }
        } else {
            if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
                host = rest[..<colon]
                port = rest[(colon + 1)...]
                guard !port.isEmpty else { return false }
            }
            guard !host.isEmpty, host.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
                return false
            }
        }
        if !port.isEmpty {
            guard port.count <= 5, port.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return false }
            let value = port.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard (1...65535).contains(value) else { return false }
        }
        return true
    }

    /// `mailto:` with something after it, or `https://` with a host: no
    /// spaces or control characters, ASCII only.
    static func isContact(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength, bytes.allSatisfy({ (0x21...0x7e).contains($0) }) else { return false }
        if bytes.starts(with: "mailto:".utf8) { return bytes.count > 7 }
        if bytes.starts(with: "https://".utf8) { return bytes.count > 8 }
        return false
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

/// Why a VAPID token cannot be made. Messages never include key material.
package enum VAPIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `scheme://host[:port]`.
    case audience
    /// Not a `mailto:` or `https:` URI.
    case subject
    /// Not in the next 24 hours; the reason says which way.
    case expiry(String)
    /// Signing failed (OpenSSL's reason).
    case signing(String)

    package var description: String {
        switch self {
        case .audience: "the audience must be the push endpoint's origin, scheme://host[:port]"
        case .subject: "the subject must be a mailto: or https: URI"
        case .expiry(let reason): "the expiry \(reason)"
        case .signing(let reason): "could not sign the VAPID token: \(reason)"
        }
    }
}
