package import FoundationEssentials
import TidingsCrypto
import TidingsJSON
import TidingsObservability
import TidingsSynchronization

/// The provider token of one APNs signing key: an ES256 JWT with header
/// `{"alg":"ES256","kid":KEY_ID}` and claims `{"iss":TEAM_ID,"iat":SECONDS}`.
///
/// APNs accepts a token for an hour and answers `429
/// TooManyProviderTokenUpdates` to a provider that changes it more often
/// than about every 20 minutes, so one token is signed, reused by every
/// push, and replaced once it is `refreshAfter` old. When APNs rejects the
/// current token (`ExpiredProviderToken`, `InvalidProviderToken`) the next
/// push gets a fresh one at once, however young the rejected one was; but a
/// token that was itself such a forced replacement is not replaced again
/// before `minimumRefreshInterval`, so a wrong key or a wrong clock cannot
/// make Tidings re-sign on every push.
///
/// Pure apart from signing: the time comes from `now`, so tests drive it
/// with a fake clock.
package final class APNsProviderToken: Sendable {
    /// A token this old is replaced before the next push.
    package static let refreshAfter: Duration = .seconds(40 * 60)
    /// A forced replacement is not replaced again before this.
    package static let minimumRefreshInterval: Duration = .seconds(20 * 60)

    private struct Issued {
        var token: String
        var issuedAt: Date
        /// Signed because APNs rejected the previous token.
        var forced: Bool
        /// APNs rejected it; the next `current()` signs anew.
        var rejected = false
    }

    package let teamID: String
    package let keyID: String
    private let key: SigningKey
    private let now: @Sendable () -> Date
    private let issued = AdaptiveMutex<Issued?>(nil)

    /// Reads the `.p8` key (PKCS#8 PEM, P-256). Team and key ids are
    /// Apple's 10-character identifiers: ASCII letters and digits.
    package init(
        teamID: String,
        keyID: String,
        privateKey: String,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(PushCredentialError) {
        guard Self.isIdentifier(teamID) else { throw PushCredentialError("the APNs team id must be 1 to 64 ASCII letters and digits") }
        guard Self.isIdentifier(keyID) else { throw PushCredentialError("the APNs key id must be 1 to 64 ASCII letters and digits") }
        do {
            self.key = try SigningKey(pem: privateKey, algorithm: .es256)
        } catch {
            throw PushCredentialError("the APNs private key \(error)")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.now = now
    }

    /// The token to send now: the cached one, or a new one when there is
    /// none yet, it is `refreshAfter` old, or APNs rejected it.
    package func current() throws(PushCredentialError) -> String {
        let now = self.now()
        // Signed under the lock: pushes arriving meanwhile wait for this
        // token instead of each signing their own.
        let result = issued.withLock { issued -> Result<String, PushCredentialError> in
            if let current = issued, !current.rejected, now.timeIntervalSince(current.issuedAt) < Self.refreshAfter.inSeconds {
                return .success(current.token)
            }
            let signed = sign(at: now)
            if case .success(let token) = signed {
                issued = Issued(token: token, issuedAt: now, forced: issued?.rejected ?? false)
            }
            return signed
        }
        return try result.get()
    }

    /// APNs answered `token` with `ExpiredProviderToken` or
    /// `InvalidProviderToken`. Returns whether sending again with
    /// `current()` is worth it: true when a fresh token will be (or already
    /// was) signed, false when the rejected token was itself a forced
    /// replacement younger than `minimumRefreshInterval`.
    @discardableResult
    package func rejected(_ token: String) -> Bool {
        let now = self.now()
        return issued.withLock { issued in
            guard var current = issued, current.token == token else { return true }
            if current.rejected { return true }
            if current.forced, now.timeIntervalSince(current.issuedAt) < Self.minimumRefreshInterval.inSeconds {
                return false
            }
            current.rejected = true
            issued = current
            return true
        }
    }

    /// When the current token was signed (nil before the first push).
    package var issuedAt: Date? {
        issued.withLock { $0?.issuedAt }
    }

    private func sign(at date: Date) -> Result<String, PushCredentialError> {
        var header = JSONWriter(capacity: 48)
        header.beginObject()
        header.key("alg")
        header.value("ES256")
        header.key("kid")
        header.value(keyID)
        header.endObject()
        var claims = JSONWriter(capacity: 48)
        claims.beginObject()
        claims.key("iat")
        claims.value(date.unitsSince1970(perSecond: 1))
        claims.key("iss")
        claims.value(teamID)
        claims.endObject()
        do {
            return .success(try JSONWebToken.compact(headerJSON: header.bytes, claimsJSON: claims.bytes, key: key))
        } catch {
            return .failure(PushCredentialError("could not sign the APNs provider token: \(error)"))
        }
    }

    private static func isIdentifier(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
    }
}
