import TidingsCrypto

/// A browser's `PushSubscription` as a web device registers it: the push
/// service endpoint (stored as the device's push token, so registering it
/// again updates the same device), `keys.p256dh` (the browser's P-256
/// public key) and `keys.auth` (its 16-byte secret). Read as hostile: every
/// part is checked here, before anything is stored, and a problem names the
/// part (`endpoint`, `keys.p256dh`, `keys.auth`) without quoting it.
///
/// Whether the endpoint's host may be called at all is the SSRF guard's
/// decision, at registration (early feedback) and again at every connect.
package struct WebPushSubscription: Sendable, Equatable {
    /// The longest endpoint accepted, in bytes. Real ones (FCM, Mozilla,
    /// Apple, Microsoft) are 150 to 500 bytes.
    package static let maximumEndpointLength = 2048
    /// base64url of 65 bytes without padding.
    static let p256dhTextLength = 87
    /// base64url of 16 bytes without padding.
    static let authTextLength = 22

    /// The endpoint as normalized (`URLNormalizer`): https, a host, no
    /// user information, no fragment.
    package let endpoint: String
    /// The endpoint's host, for the SSRF check.
    package let host: String
    /// base64url without padding of the uncompressed point, 87 characters.
    package let p256dh: String
    /// base64url without padding of the 16-byte secret, 22 characters. A
    /// secret: sealed when stored, never returned or logged.
    package let auth: String

    /// A part of the subscription that cannot be used, and why.
    package struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// `endpoint`, `keys.p256dh` or `keys.auth`.
        package let field: String
        package let message: String

        package var description: String { "\(field): \(message)" }
    }

    package init(endpoint: String, p256dh: String, auth: String) throws(Problem) {
        let normalized = try Self.endpoint(endpoint)
        self.endpoint = normalized.text
        self.host = normalized.host
        self.p256dh = try Self.p256dh(p256dh)
        self.auth = try Self.auth(auth)
    }

    /// An endpoint Tidings may post to: an https URL (the scheme in lower
    /// case, as browsers write it) of at most 2048 bytes with a host that
    /// does not end in a dot, no user name or password, no fragment,
    /// printable ASCII without spaces.
    static func endpoint(_ text: String) throws(Problem) -> NormalizedURL {
        func problem(_ message: String) -> Problem { Problem(field: "endpoint", message: message) }
        let bytes = text.utf8
        guard !bytes.isEmpty else { throw problem("must not be empty") }
        guard bytes.count <= maximumEndpointLength else { throw problem("must be at most \(maximumEndpointLength) bytes") }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw problem("must be printable ASCII without spaces (a push service URL)")
        }
        guard bytes.starts(with: "https://".utf8) else { throw problem("must be an https URL (starting https://)") }
        guard !bytes.contains(UInt8(ascii: "#")) else { throw problem("must not have a fragment") }
        let authority = bytes.dropFirst("https://".count).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }
        guard !authority.contains(UInt8(ascii: "@")) else { throw problem("must not contain a user name or password") }
        let url: NormalizedURL
        do {
            url = try URLNormalizer.normalize(text)
        } catch {
            throw problem(error.message)
        }
        guard url.scheme == "https", url.text.utf8.count <= maximumEndpointLength else {
            throw problem("must be an https URL of at most \(maximumEndpointLength) bytes")
        }
        // `push.example.` names the same DNS host as `push.example`, but the
        // VAPID audience is the origin without the dot, which the push
        // service would not match; no push service hands one out.
        guard !url.host.hasSuffix(".") else { throw problem("must not end its host name with a dot") }
        return url
    }

    /// base64url (no padding) of a P-256 point the curve has.
    static func p256dh(_ text: String) throws(Problem) -> String {
        func problem(_ message: String) -> Problem { Problem(field: "keys.p256dh", message: message) }
        let bytes = try base64URL(text, field: "keys.p256dh", maximumLength: 96)
        do {
            return try P256PublicKey(bytes: bytes).base64URL
        } catch {
            switch error {
            case .wrongLength(let expected, let actual):
                throw problem("must be \(expected) bytes (an uncompressed P-256 point), not \(actual)")
            case .notUncompressedPoint: throw problem("must be an uncompressed P-256 point (its first byte 0x04)")
            case .notOnCurve: throw problem("is not a point on the P-256 curve")
            default: throw problem("is not a P-256 public key")
            }
        }
    }

    /// base64url (no padding) of exactly 16 bytes.
    static func auth(_ text: String) throws(Problem) -> String {
        let bytes = try base64URL(text, field: "keys.auth", maximumLength: 32)
        guard bytes.count == WebPushEncryption.authSecretByteCount else {
            throw Problem(field: "keys.auth", message: "must be \(WebPushEncryption.authSecretByteCount) bytes, not \(bytes.count)")
        }
        return Base64.encodeURLSafe(bytes)
    }

    /// The bytes of base64url text: the URL-safe alphabet, unpadded (as
    /// browsers send it) or padded to a multiple of four.
    private static func base64URL(_ text: String, field: String, maximumLength: Int) throws(Problem) -> [UInt8] {
        let utf8 = text.utf8
        guard !utf8.isEmpty else { throw Problem(field: field, message: "must not be empty") }
        guard utf8.count <= maximumLength else { throw Problem(field: field, message: "is too long for its key") }
        let unpadded = utf8.prefix { $0 != UInt8(ascii: "=") }
        let padding = utf8.dropFirst(unpadded.count)
        guard padding.allSatisfy({ $0 == UInt8(ascii: "=") }), padding.isEmpty || utf8.count % 4 == 0,
            unpadded.allSatisfy(isBase64URLByte), unpadded.count % 4 != 1,
            let bytes = Base64.decode(String(decoding: unpadded, as: UTF8.self))
        else { throw Problem(field: field, message: "must be base64url") }
        return bytes
    }

    private static func isBase64URLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
