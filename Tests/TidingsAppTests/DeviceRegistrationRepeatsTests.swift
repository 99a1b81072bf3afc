import Foundation
import Testing
@testable import TidingsDomain

/// In a batch of device registrations, only an exact repeat of the latest
/// registration of the same user and token is answered without being sent;
/// anything that could change the row is sent, in order.
@Suite struct DeviceRegistrationRepeatsTests {
    private typealias Pending = DeviceStore.PendingRegistration

    private static let ada = UUID()
    private static let bob = UUID()

    private static func pending(_ user: UUID, _ token: String, name: String? = nil) -> Pending {
        Pending(userID: user, registration: DeviceRegistration(platform: .ios, pushToken: token, name: name))
    }

    @Test func exactRepeatsAreAnsweredByTheFirst() {
        let a = Self.pending(Self.ada, "t")
        let (distinct, answeredBy) = DeviceStore.withoutRepeats([a, a, a])
        #expect(distinct == [a])
        #expect(answeredBy == [0, 0, 0])
    }

    @Test func aDifferentRegistrationInBetweenIsSentAndSoIsTheRepeatAfterIt() {
        let a = Self.pending(Self.ada, "t", name: "one")
        let b = Self.pending(Self.ada, "t", name: "two")
        let (distinct, answeredBy) = DeviceStore.withoutRepeats([a, b, a, a])
        #expect(distinct == [a, b, a])
        #expect(answeredBy == [0, 1, 2, 2])
    }

    @Test func otherTokensAndUsersDoNotInterrupt() {
        let a = Self.pending(Self.ada, "t")
        let other = Self.pending(Self.ada, "u")
        let bobs = Self.pending(Self.bob, "t")
        let (distinct, answeredBy) = DeviceStore.withoutRepeats([a, other, bobs, a, bobs])
        #expect(distinct == [a, other, bobs])
        #expect(answeredBy == [0, 1, 2, 0, 2])
    }
}
