import TidingsCrypto
@testable import TidingsExtraction

/// A fetched page: the input is a Content-Type header value, a newline,
/// then the body. The body is extracted as readable text (HTML's visible
/// text, canonical JSON or text, by the header or sniffing), raw, by CSS
/// and by XPath through libxml2 (with the header's charset), or as JSON;
/// errors are ExtractionErrors. Extracted text is at most the snapshot
/// limit, and its hash covers exactly the text when it was not cut; both
/// whitespace normalizations are idempotent, and the one keeping lines
/// leaves no blank line; a UTF-8 prefix fits its limit and is a prefix.
enum PageContentTarget {
    static func run(_ input: FuzzInput) {
        let newline = input.bytes.firstIndex(of: UInt8(ascii: "\n")) ?? input.bytes.endIndex
        let contentType = String(decoding: input.bytes[..<newline], as: UTF8.self)
        let body = Array(input.bytes[newline...].dropFirst())
        _ = ContentType.charset(in: contentType)

        let specs: [ExtractionSpec] = [
            .readable,
            .raw,
            ExtractionSpec(selector: .css("h1, p.x > a")),
            ExtractionSpec(selector: .xpath("//title")),
            ExtractionSpec(selector: .jsonPointer("/a/0")),
        ]
        for spec in specs {
            do {
                let content = try ContentExtractor.extract(body: body, contentType: contentType, spec: spec)
                check(content.text.utf8.count <= ContentExtractor.snapshotByteLimit, "text over the snapshot limit")
                if !content.isTruncated {
                    check(content.hash == SHA256.hash(content.text).hex, "hash of an uncut text differs from the text's")
                }
            } catch {
                check(error is ExtractionError, "not an ExtractionError: \(error)")
            }
        }

        let text = String(decoding: body, as: UTF8.self)
        let normalized = WhitespaceNormalizer.normalize(text)
        check(WhitespaceNormalizer.normalize(normalized) == normalized, "normalization is not idempotent")
        let lines = WhitespaceNormalizer.normalizeLines(text)
        check(WhitespaceNormalizer.normalizeLines(lines) == lines, "line normalization is not idempotent")
        check(!lines.contains("\n\n"), "line normalization left a blank line")
        let limit = Int(input.bytes.first ?? 0)
        let prefix = text.prefix(utf8Bytes: limit)
        check(prefix.utf8.count <= max(limit, 0) && text.hasPrefix(prefix), "prefix(utf8Bytes: \(limit))")
    }
}
