import FoundationEssentials
import TidingsHTTPClient
import TidingsSynchronization

/// An access token a token endpoint granted, read from its answer as
/// hostile: the answer is size-capped, must be a JSON object with a
/// `Bearer` `token_type` and a plain `access_token`, and an absurd
/// `expires_in` is clamped, never trusted.
package struct FCMAccessGrant: Sendable, Equatable {
    /// Google grants an hour; a longer lifetime is cut to it.
    package static let longestLifetime: Duration = .seconds(3600)
    /// The lifetime assumed when the answer names none (RFC 6749 makes
    /// `expires_in` optional).
    package static let assumedLifetime: Duration = .seconds(600)
    /// The longest access token accepted (Google's are about 1 KiB).
    package static let maximumTokenLength = 4096

    package var accessToken: String
    /// `expires_in`, within `0...longestLifetime`.
    package var lifetime: Duration

    package init(accessToken: String, lifetime: Duration) {
        self.accessToken = accessToken
        self.lifetime = lifetime
    }

    /// The grant in a token endpoint's answer, or why there is none:
    /// transient for 429, 5xx and unreadable 200 answers, final for a
    /// refusal (`invalid_grant` and other 4xx).
    package static func read(status: Int, body: [UInt8], truncated: Bool) -> Result<FCMAccessGrant, PushCredentialError> {
        guard status == 200 else { return .failure(refusal(status: status, body: body, truncated: truncated)) }
        struct Answer: Decodable {
            var access_token: String
            var token_type: String
            var expires_in: Double?
        }
        guard let answer = PushAnswerBody.decode(Answer.self, from: body, truncated: truncated) else {
            return .failure(
                PushCredentialError(
                    "the token endpoint's answer is not a JSON object with access_token and token_type", isTransient: true
                ))
        }
        guard answer.token_type.lowercased() == "bearer" else {
            return .failure(PushCredentialError("the token endpoint granted a token that is not a Bearer token", isTransient: true))
        }
        let token = answer.access_token
        guard (1...maximumTokenLength).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .failure(
                PushCredentialError(
                    "the token endpoint granted an access token that is empty, longer than \(maximumTokenLength) bytes or not plain ASCII",
                    isTransient: true
                ))
        }
        let lifetime = answer.expires_in.map { Duration.seconds(clamping: $0) } ?? assumedLifetime
        return .success(FCMAccessGrant(accessToken: token, lifetime: lifetime.clamped(to: .zero...longestLifetime)))
    }

    private static func refusal(status: Int, body: [UInt8], truncated: Bool) -> PushCredentialError {
        struct OAuthError: Decodable {
            var error: String
        }
        let code = PushAnswerBody.code(PushAnswerBody.decode(OAuthError.self, from: body, truncated: truncated)?.error)
        let named = code.map { "\($0) (\(status))" } ?? "\(status)"
        if status == 429 || (500...599).contains(status) {
            return PushCredentialError("the token endpoint answered \(named)", isTransient: true)
        }
        return PushCredentialError("the token endpoint refused the service account: \(named)")
    }
}
