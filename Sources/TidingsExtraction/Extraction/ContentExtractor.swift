import TidingsCrypto

/// Turns a response body into what a watch compares: select (whole body, CSS,
/// XPath or JSON pointer), remove the ignore patterns' matches, normalize
/// whitespace, hash. Pure and synchronous: run it off I/O threads.
package enum ContentExtractor {
    /// How much normalized text `ExtractedContent.text` keeps (64 KiB).
    package static let snapshotByteLimit = 64 << 10

    /// Selects from `body` by `spec.selector`: HTML is parsed with libxml2
    /// whatever `contentType` says, honouring its charset; JSON and the
    /// whole body are read as UTF-8 with invalid bytes replaced. The texts
    /// of several matched nodes are joined with a newline before
    /// normalization (so adjacent matches do not run together). The work
    /// stays within `limits`; past one it throws an `ExtractionError`
    /// naming it.
    package static func extract(
        body: [UInt8],
        contentType: String?,
        spec: ExtractionSpec = .wholeBody,
        limits: ExtractionLimits = .default
    ) throws -> ExtractedContent {
        let budget = ExtractionBudget(limits: limits)
        let ignorePatterns = try IgnorePatterns(spec.ignorePatterns)
        let selected = try select(from: body, contentType: contentType, selector: spec.selector, budget: budget)
        guard selected.utf8.count <= limits.textByteLimit else {
            throw ExtractionError(code: .textTooLarge, message: "the selected text is larger than \(limits.textByteLimit) bytes")
        }
        let normalized = WhitespaceNormalizer.normalize(try ignorePatterns.removeMatches(from: selected, budget: budget))
        let snapshot = normalized.prefix(utf8Bytes: snapshotByteLimit)
        return ExtractedContent(
            text: snapshot,
            isTruncated: snapshot.utf8.count < normalized.utf8.count,
            hash: SHA256.hash(normalized).hex
        )
    }

    private static func select(from body: [UInt8], contentType: String?, selector: ExtractionSpec.Selector, budget: ExtractionBudget) throws -> String {
        switch selector {
        case .wholeBody:
            return String(decoding: body, as: UTF8.self)
        case .css(let selector):
            let document = try HTMLDocument(bytes: body, encoding: ContentType.charset(in: contentType), budget: budget)
            return try document.css(selector).joined(separator: "\n")
        case .xpath(let expression):
            let document = try HTMLDocument(bytes: body, encoding: ContentType.charset(in: contentType), budget: budget)
            return try document.xpath(expression).joined(separator: "\n")
        case .jsonPointer(let pointer):
            let value = try JSONPointerEvaluator.value(at: pointer, in: JSONValue(parsing: body))
            // A string is compared as its text, so a version endpoint's
            // "1.2.3" reads as 1.2.3; everything else as canonical JSON.
            if case .string(let text) = value { return text }
            return value.canonicalJSON
        }
    }
}
