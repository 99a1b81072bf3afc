import TidingsCrypto

/// Turns a response body into what a watch compares: select (readable
/// text, the raw body, CSS, XPath or JSON pointer), remove the ignore
/// patterns' matches, normalize whitespace, hash. Pure and synchronous:
/// run it off I/O threads.
package enum ContentExtractor {
    /// How much normalized text `ExtractedContent.text` keeps (64 KiB).
    package static let snapshotByteLimit = 64 << 10

    /// Lower-case hex SHA-256 of a raw body: a full body with the hash of
    /// the last one is unchanged for every rule (decision 0027).
    package static func bodyHash(_ body: [UInt8]) -> String {
        SHA256.hash(body).hex
    }

    /// `extract(from:spec:limits:)` on a body of its own.
    package static func extract(
        body: [UInt8],
        contentType: String?,
        spec: ExtractionSpec = .readable,
        limits: ExtractionLimits = .default
    ) throws -> ExtractedContent {
        try extract(from: ResponseContent(body: body, contentType: contentType), spec: spec, limits: limits)
    }

    /// Selects from `response` by `spec.selector`. HTML is parsed with
    /// libxml2 (once per `response`), honouring the charset; JSON and text
    /// are read as UTF-8 with invalid bytes replaced. Elements read as their
    /// visible text, several matches one per line. Everything but the raw
    /// rule keeps line breaks (`normalizeLines`); raw is one line, as
    /// before decision 0027. The work stays within `limits`, counted from
    /// now (parsing included, when this rule is the first to need it); past
    /// one it throws an `ExtractionError` naming it.
    package static func extract(
        from response: ResponseContent,
        spec: ExtractionSpec,
        limits: ExtractionLimits = .default
    ) throws -> ExtractedContent {
        let budget = ExtractionBudget(limits: limits)
        let ignorePatterns = try IgnorePatterns(spec.ignorePatterns)
        let selected = try select(from: response, selector: spec.selector, budget: budget)
        guard selected.utf8.count <= limits.textByteLimit else {
            throw ExtractionError(code: .textTooLarge, message: "the selected text is larger than \(limits.textByteLimit) bytes")
        }
        let kept = try ignorePatterns.removeMatches(from: selected, budget: budget)
        let normalized = spec.selector == .raw ? WhitespaceNormalizer.normalize(kept) : WhitespaceNormalizer.normalizeLines(kept)
        let snapshot = normalized.prefix(utf8Bytes: snapshotByteLimit)
        return ExtractedContent(
            text: snapshot,
            isTruncated: snapshot.utf8.count < normalized.utf8.count,
            hash: SHA256.hash(normalized).hex
        )
    }

    private static func select(from response: ResponseContent, selector: ExtractionSpec.Selector, budget: ExtractionBudget) throws -> String
    {
        switch selector {
        case .raw:
            return String(decoding: response.body, as: UTF8.self)
        case .readable:
            switch response.kind {
            case .html:
                return try response.htmlDocument(budget: budget).visibleText(budget: budget)
            case .json:
                // Malformed JSON is still a page: compared as its text.
                guard let value = try? response.jsonValue() else { return String(decoding: response.body, as: UTF8.self) }
                return value.canonicalJSON
            case .text:
                return String(decoding: response.body, as: UTF8.self)
            }
        case .css(let selector):
            return try response.htmlDocument(budget: budget).css(selector, budget: budget, readable: true).joined(separator: "\n")
        case .xpath(let expression):
            return try response.htmlDocument(budget: budget).xpath(expression, budget: budget, readable: true).joined(separator: "\n")
        case .jsonPointer(let pointer):
            let value = try JSONPointerEvaluator.value(at: pointer, in: response.jsonValue())
            // A string is compared as its text, so a version endpoint's
            // "1.2.3" reads as 1.2.3; everything else as canonical JSON.
            if case .string(let text) = value { return text }
            return value.canonicalJSON
        }
    }
}
