/// Whether a CSS selector or an XPath expression can work at all, judged
/// when a watch is created or changed, so that a rule that would fail every
/// check is refused with a 422 instead: a syntax libxml2 refuses, a function
/// or variable it does not know or a namespace prefix nobody can declare
/// (found only by evaluating: libxml2 resolves them then), or CSS outside the
/// supported subset. The rule is evaluated once on an empty page, within
/// small limits.
package enum SelectorCheck {
    /// Nil when the rule can run, else why not.
    package static func problem(with selector: ExtractionSpec.Selector) -> String? {
        var limits = ExtractionLimits.default
        limits.timeLimit = .milliseconds(200)
        limits.xpathOperationLimit = 100_000
        do {
            _ = try ContentExtractor.extract(
                body: emptyPage, contentType: "text/html", spec: ExtractionSpec(selector: selector), limits: limits)
            return nil
        } catch let error as ExtractionError where refusedCodes.contains(error.code) {
            return error.message
        } catch {
            // Limits on an empty page say nothing of a real one.
            return nil
        }
    }

    private static let refusedCodes: Set<ExtractionError.Code> = [.invalidSelector, .unsupportedSelector, .invalidXPath]
    private static let emptyPage = Array("<html><head><title></title></head><body><p></p></body></html>".utf8)
}
