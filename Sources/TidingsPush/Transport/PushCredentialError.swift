/// Why a push app's credentials cannot be used: a key that does not read,
/// a service account missing a field, a token endpoint that refused or did
/// not answer. `message` is short and safe for logs and the push log: it
/// never contains key material, a JWT or an access token.
package struct PushCredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// True when trying again later may help (the token endpoint was
    /// unreachable, busy or answered garbage); false when the credentials
    /// themselves were refused or are malformed.
    package var isTransient: Bool

    package init(_ message: String, isTransient: Bool = false) {
        self.message = message
        self.isTransient = isTransient
    }

    package var description: String { message }
}
