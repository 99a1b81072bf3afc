import FoundationEssentials
import TidingsPostgres

/// Builds `{"a","b",NULL}` array literals, so a batch of rows travels as a
/// few array parameters (unnest) instead of one statement per row. Every
/// element is double-quoted with `"` and `\` escaped, which is correct for
/// any element type's text form. Every store builds its arrays here.
enum PostgresArrayLiteral {
    static func make(_ elements: [String?]) -> String {
        var literal = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { literal += "," }
            guard let element else {
                literal += "NULL"
                continue
            }
            literal += "\""
            for character in element.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }

    /// `{a,b}`: a uuid's text needs no quoting.
    static func make(_ ids: [UUID]) -> String {
        "{" + ids.map(\.postgresText).joined(separator: ",") + "}"
    }
}
