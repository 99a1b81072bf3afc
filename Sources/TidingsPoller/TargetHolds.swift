import TidingsDomain

/// Which check results keep their target held by this poller (decision
/// 0057), so that it reads the target when it next falls due instead of
/// claiming it with a write. Alone, a poller keeps every target it checks.
/// Beside other live pollers it gives back every `giveBackEvery`-th, for
/// whichever claims it first: a replica that starts late gets its share
/// within a few rounds, and one holding more than the others sheds it.
struct TargetHolds: Sendable {
    static let giveBackEvery = 8

    private var owners = LiveOwners(count: 1)
    private var decided = 0

    mutating func share(among owners: LiveOwners) {
        self.owners = owners
    }

    /// Whether the next result written keeps its target held.
    mutating func keepsNext() -> Bool {
        guard owners.count > 1 else { return true }
        decided &+= 1
        return !decided.isMultiple(of: Self.giveBackEvery)
    }
}
