import Foundation
import Testing
import TidingsCrypto
import TidingsPush
import TidingsTestSupport

/// The provider token's reuse and refresh rules, on a fake clock.
@Suite struct APNsProviderTokenTests {
    private func makeToken(_ clock: FakeClock) throws -> APNsProviderToken {
        try APNsProviderToken(teamID: "TEAM123456", keyID: "KEY7890ABC", privateKey: TestPushKeys.p256.pem, now: clock.reading)
    }

    @Test func aTokenCarriesKidIssAndIatAndAJOSESignature() throws {
        let clock = FakeClock()
        let token = try makeToken(clock).current()

        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        #expect(Base64.decode(parts[0]) == Array(#"{"alg":"ES256","kid":"KEY7890ABC"}"#.utf8))
        #expect(Base64.decode(parts[1]) == Array(#"{"iat":1790000000,"iss":"TEAM123456"}"#.utf8))
        #expect(Base64.decode(parts[2])?.count == 64)
    }

    @Test func oneTokenServesForFortyMinutesThenIsReplaced() throws {
        let clock = FakeClock()
        let provider = try makeToken(clock)
        let first = try provider.current()

        clock.advance(.seconds(40 * 60 - 1))
        let stillFirst = try provider.current()
        clock.advance(.seconds(1))
        let second = try provider.current()

        #expect(stillFirst == first)
        #expect(second != first)
        #expect(provider.issuedAt == clock.now())
        #expect(try provider.current() == second)
    }

    @Test func aRejectedTokenIsReplacedAtOnceButOnlyOncePerTwentyMinutes() throws {
        let clock = FakeClock()
        let provider = try makeToken(clock)
        let first = try provider.current()
        clock.advance(.seconds(60))

        #expect(provider.rejected(first))
        let forced = try provider.current()
        #expect(forced != first)
        // Pushes that were in flight with the old token come back too:
        // they send again with the new one, nothing more is signed.
        #expect(provider.rejected(first))
        #expect(try provider.current() == forced)

        // The forced token rejected within 20 minutes: no new token.
        clock.advance(.seconds(19 * 60))
        #expect(!provider.rejected(forced))
        #expect(try provider.current() == forced)

        // After 20 minutes a rejection replaces it again.
        clock.advance(.seconds(60))
        #expect(provider.rejected(forced))
        let third = try provider.current()
        #expect(third != forced)
        #expect(!provider.rejected(third))
    }

    @Test func aTokenRefreshedOnScheduleMayBeRejectedOnce() throws {
        let clock = FakeClock()
        let provider = try makeToken(clock)
        _ = try provider.current()
        clock.advance(.seconds(40 * 60))
        let scheduled = try provider.current()
        clock.advance(.seconds(1))

        #expect(provider.rejected(scheduled))
        let forced = try provider.current()
        #expect(forced != scheduled)
        #expect(!provider.rejected(forced))
    }

    @Test func badIdentitiesAndKeysAreRefusedWithoutEchoingThem() throws {
        let key = TestPushKeys.p256.pem
        #expect(throws: PushCredentialError("the APNs team id must be 1 to 64 ASCII letters and digits")) {
            try APNsProviderToken(teamID: "TEAM\"}", keyID: "KEY", privateKey: key)
        }
        #expect(throws: PushCredentialError("the APNs key id must be 1 to 64 ASCII letters and digits")) {
            try APNsProviderToken(teamID: "TEAM", keyID: "", privateKey: key)
        }
        let rsa = TestPushKeys.rsa.pem
        #expect(throws: PushCredentialError("the APNs private key must be an EC private key on the P-256 curve")) {
            try APNsProviderToken(teamID: "TEAM", keyID: "KEY", privateKey: rsa)
        }
        do {
            _ = try APNsProviderToken(teamID: "TEAM", keyID: "KEY", privateKey: String(key.dropLast(30)))
            Issue.record("a truncated key was accepted")
        } catch {
            #expect(!error.message.contains("PRIVATE KEY") && !error.message.contains(String(key.dropFirst(40).prefix(20))))
        }
    }
}
