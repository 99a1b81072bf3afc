import FoundationEssentials

/// A change as the sync feed lists it: the change, where it stands in the
/// user's order, and what an app shows of its watch without asking again.
package struct FeedChange: Sendable, Equatable {
    package let change: Change
    package let position: FeedPosition
    package let watchName: String
    package let watchURL: String
}
