import FoundationEssentials

/// Which watcher's lane runs each distinct extraction rule of a target, so
/// a check's extraction work is charged to the users who asked for it: a
/// lane runs in its owner's turn of the extraction pool and within its
/// owner's time budget (one extraction time limit per check), and the
/// lanes of one check run side by side. A tenant that attaches hundreds of
/// heavy rules to another's URL fills its own lane and spends its own
/// budget; the other watchers' rules wait for at most one job per other
/// user in the pool (`FairQueue`), not for those rules.
///
/// A rule several users share runs once (decision 0027), in the lane of
/// whichever of them has the fewest distinct rules on the target: it is
/// work each of them needs anyway, so it costs that owner nothing beyond
/// its own rule, and one user's many rules cannot be made to carry, or to
/// delay, a rule it shares with another.
struct ExtractionLanes<Owner: Hashable, Rule: Hashable> {
    struct Lane {
        let owner: Owner
        /// Distinct rules in the order their first watch has them.
        var rules: [Rule]
    }

    /// Lanes in the order their owner first appears; only owners that run
    /// at least one rule have one.
    private(set) var lanes: [Lane] = []

    private struct Pair: Hashable {
        let owner: Owner
        let rule: Rule
    }

    /// `watches` in the target's order, each as its owner and rule key.
    init(watches: [(owner: Owner, rule: Rule)]) {
        var seen: Set<Pair> = []
        var rules: [Rule] = []
        var owners: [Rule: [Owner]] = [:]
        var rulesPerOwner: [Owner: Int] = [:]
        var ownerOrder: [Owner] = []
        for (owner, rule) in watches {
            if rulesPerOwner[owner] == nil {
                ownerOrder.append(owner)
                rulesPerOwner[owner] = 0
            }
            if owners[rule] == nil { rules.append(rule) }
            guard seen.insert(Pair(owner: owner, rule: rule)).inserted else { continue }
            owners[rule, default: []].append(owner)
            rulesPerOwner[owner, default: 0] += 1
        }
        var assigned: [Owner: [Rule]] = [:]
        for rule in rules {
            let candidates = owners[rule] ?? []
            // min(by:) keeps the first of equals: ties go to the earliest watcher.
            guard let owner = candidates.min(by: { rulesPerOwner[$0, default: 0] < rulesPerOwner[$1, default: 0] }) else { continue }
            assigned[owner, default: []].append(rule)
        }
        lanes = ownerOrder.compactMap { owner in assigned[owner].map { Lane(owner: owner, rules: $0) } }
    }
}
