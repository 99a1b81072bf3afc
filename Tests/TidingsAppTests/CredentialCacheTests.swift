import Foundation
import Testing
import TidingsCrypto
import TidingsDomain

@testable import TidingsApp

@Suite struct CredentialCacheTests {
    private let token = SHA256.hash("tdg_000000000000_token")
    private let key = AuthenticatedKey(keyID: UUID(), userID: UUID())

    @Test func servesNothingUntilTrusted() {
        let cache = CredentialCache()
        #expect(cache.generation == nil)
        cache.store(key, for: token, generation: 0)
        #expect(cache.lookup(token) == nil)

        cache.forgetAllAndTrust()
        cache.store(key, for: token, generation: cache.generation)
        #expect(cache.lookup(token)?.key == key)

        // Losing the revocation feed forgets everything at once.
        cache.forgetAllAndDistrust()
        #expect(cache.lookup(token) == nil)
        #expect(cache.count == 0)
    }

    @Test func aLookupThatRacedAnInvalidationIsNotStored() {
        let cache = CredentialCache()
        cache.forgetAllAndTrust()
        let before = cache.generation
        cache.invalidate(keyID: key.keyID)
        cache.store(key, for: token, generation: before)
        #expect(cache.lookup(token) == nil)
    }

    @Test func invalidationByKeyOrUserDropsOnlyThatCredential() {
        let cache = CredentialCache()
        cache.forgetAllAndTrust()
        let other = AuthenticatedKey(keyID: UUID(), userID: UUID())
        let otherToken = SHA256.hash("other")
        cache.store(key, for: token, generation: cache.generation)
        cache.store(other, for: otherToken, generation: cache.generation)

        cache.invalidate(keyID: key.keyID)
        #expect(cache.lookup(token) == nil)
        #expect(cache.lookup(otherToken)?.key == other)
        cache.invalidate(userID: other.userID)
        #expect(cache.lookup(otherToken) == nil)
    }

    @Test func entriesExpireAndUsageIsMarkedOncePerInterval() {
        let cache = CredentialCache(lifetime: .seconds(300))
        cache.forgetAllAndTrust()
        let start = ContinuousClock.now
        cache.store(key, for: token, generation: cache.generation, now: start)
        #expect(cache.lookup(token, now: start + .seconds(1))?.markUsed == false)
        #expect(cache.lookup(token, now: start + .seconds(61))?.markUsed == true)
        #expect(cache.lookup(token, now: start + .seconds(62))?.markUsed == false)
        #expect(cache.lookup(token, now: start + .seconds(301)) == nil)
    }

    @Test func staysWithinItsCapacity() {
        let cache = CredentialCache(capacity: 3)
        cache.forgetAllAndTrust()
        for index in 0..<10 {
            cache.store(AuthenticatedKey(keyID: UUID(), userID: UUID()), for: SHA256.hash("token \(index)"), generation: cache.generation)
            #expect(cache.count <= 3)
        }
    }
}
