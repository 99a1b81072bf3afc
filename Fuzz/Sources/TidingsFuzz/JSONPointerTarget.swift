@testable import TidingsExtraction

/// JSON pointers of extraction rules, against JSON bodies. The input is a
/// pointer, a newline, then a document (a fixed one when the rest is not
/// JSON). Any pointer evaluates or throws an ExtractionError; a pointer
/// escaped from its own tokens reads back as those tokens; the pointer of
/// every value in the document finds that value.
enum JSONPointerTarget {
    static let fallback = try! JSONValue(parsing: Array(#"{"a":[1,{"b/c":"d","e~f":null}],"":{"":2}}"#.utf8))

    static func run(_ input: FuzzInput) {
        let newline = input.bytes.firstIndex(of: UInt8(ascii: "\n")) ?? input.bytes.endIndex
        let pointer = String(decoding: input.bytes[..<newline], as: UTF8.self)
        let rest = Array(input.bytes[newline...].dropFirst())
        let document = (try? JSONValue(parsing: rest)) ?? fallback

        if let tokens = try? JSONPointerEvaluator.tokens(of: pointer) {
            let rebuilt = tokens.map { "/" + JSONPointerEvaluator.escape($0) }.joined()
            let again = try? JSONPointerEvaluator.tokens(of: rebuilt)
            check(again == tokens, "\(pointer.debugDescription) -> \(tokens) -> \(rebuilt.debugDescription) -> \(String(describing: again))")
        }
        do {
            _ = try JSONPointerEvaluator.value(at: pointer, in: document)
        } catch {
            check(error is ExtractionError, "not an ExtractionError: \(error)")
        }

        var budget = 200
        visit(document, pointer: "", root: document, budget: &budget)
    }

    private static func visit(_ value: JSONValue, pointer: String, root: JSONValue, budget: inout Int) {
        guard budget > 0 else { return }
        budget -= 1
        let found = try? JSONPointerEvaluator.value(at: pointer, in: root)
        check(found == value, "\(pointer.debugDescription) found \(String(describing: found)), expected \(value)")
        switch value {
        case .object(let members):
            for (key, member) in members { visit(member, pointer: pointer + "/" + JSONPointerEvaluator.escape(key), root: root, budget: &budget) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { visit(element, pointer: pointer + "/\(index)", root: root, budget: &budget) }
        default:
            break
        }
    }
}
