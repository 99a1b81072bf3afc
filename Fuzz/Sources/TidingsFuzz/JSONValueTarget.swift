import TidingsExtraction

/// JSON bodies of watched pages and version endpoints (Extraction's
/// JSONValue, whose canonical text is hashed to detect changes). Any bytes
/// parse or throw an ExtractionError; the canonical text of a parsed value
/// is JSON that parses back to a value with the same canonical text.
enum JSONValueTarget {
    static func run(_ input: FuzzInput) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: input.bytes)
        } catch {
            check(error is ExtractionError, "not an ExtractionError: \(error)")
            return
        }
        let canonical = value.canonicalJSON
        do {
            let again = try JSONValue(parsing: Array(canonical.utf8))
            check(again.canonicalJSON == canonical, "canonical text changed: \(canonical) -> \(again.canonicalJSON)")
        } catch {
            check(false, "canonical text is not JSON: \(canonical)")
        }
    }
}
