/// How much work one extraction (one rule on one response) may do. Past
/// any limit it fails with an `ExtractionError` naming the limit, and the
/// watch's check fails like any other (docs/LIMITS.md).
package struct ExtractionLimits: Sendable, Equatable {
    /// Wall-clock time for the whole extraction: parsing, selecting and
    /// the ignore patterns (`TIDINGS_EXTRACTION_TIMEOUT`).
    package var timeLimit: Duration = .seconds(2)
    /// libxml2 XPath operations (node visits and steps) per evaluation.
    package var xpathOperationLimit = 10_000_000
    /// Nodes of a parsed HTML document (`TIDINGS_EXTRACTION_MAX_NODES`).
    /// Bounds the work libxml2 does between two checks of the operation
    /// limit: merging the node sets of a step such as `//div//p` compares
    /// pairs of nodes without counting.
    package var documentNodeLimit = 100_000
    /// Matcher steps for each ignore pattern.
    package var patternStepLimit = 50_000_000
    /// UTF-8 bytes of selected text (all matched nodes together) before
    /// whitespace is normalized.
    package var textByteLimit = 16 << 20

    package static let `default` = ExtractionLimits()

    package init() {}
}

/// One extraction's limits and deadline. Used by the thread running the
/// extraction only (the XPath watchdog reads just the deadline).
final class ExtractionBudget {
    let limits: ExtractionLimits
    let deadline: ContinuousClock.Instant

    init(limits: ExtractionLimits) {
        self.limits = limits
        deadline = .now.advanced(by: limits.timeLimit)
    }

    /// Throws once the deadline has passed; `activity` says what was
    /// running ("matching ignore pattern 2").
    func checkTime(during activity: String) throws(ExtractionError) {
        if ContinuousClock.now >= deadline { throw timeLimitError(during: activity) }
    }

    func timeLimitError(during activity: String) -> ExtractionError {
        .timeLimitExceeded(limits.timeLimit, during: activity)
    }
}
