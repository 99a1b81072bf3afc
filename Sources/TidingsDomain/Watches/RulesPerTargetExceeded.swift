/// A watch refused because its target (its URL, headers and version check)
/// would carry more distinct extraction rules than `maximum`
/// (`TIDINGS_MAX_RULES_PER_TARGET`): every rule is extracted on every
/// check of the target, so this bounds the work one fetch can bring.
/// Thrown inside the transaction, so nothing it wrote stays.
package struct RulesPerTargetExceeded: Error, Sendable, Equatable {
    package let maximum: Int

    package init(maximum: Int) {
        self.maximum = maximum
    }
}
