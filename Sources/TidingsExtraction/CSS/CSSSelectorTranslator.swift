internal import CLibXML2

/// Translates the common CSS selector subset to XPath 1.0: type selectors,
/// `*`, `#id`, `.class`, `[attr]`, `[attr=value]` (value quoted or a bare
/// identifier), compound selectors, descendant (space) and child (`>`)
/// combinators, and selector lists (`,`). Anything else is rejected with an
/// `ExtractionError` naming the construct, never silently approximated.
///
/// Element and attribute names are lower-cased because libxml2's HTML parser
/// lower-cases them; ids, classes and values stay case-sensitive.
package enum CSSSelectorTranslator {
    package static func xpath(for selector: String) throws -> String {
        var parser = Parser(Array(selector.unicodeScalars))
        return try parser.selectorList()
    }

    private struct Parser {
        private let scalars: [Unicode.Scalar]
        private var position = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        private var current: Unicode.Scalar? {
            position < scalars.count ? scalars[position] : nil
        }

        mutating func selectorList() throws -> String {
            var alternatives: [String] = []
            repeat {
                skipWhitespace()
                alternatives.append(try complexSelector())
            } while consume(",")
            if let current {
                throw invalid("unexpected '\(current)' at position \(position + 1)")
            }
            return alternatives.joined(separator: " | ")
        }

        private mutating func complexSelector() throws -> String {
            var path = "//" + (try compoundSelector())
            while true {
                let hadWhitespace = skipWhitespace()
                guard let current, current != "," else { return path }
                switch current {
                case ">":
                    position += 1
                    skipWhitespace()
                    path += "/" + (try compoundSelector())
                case "~", "+":
                    throw unsupported("the sibling combinator '\(current)'")
                default:
                    guard hadWhitespace else {
                        throw invalid("unexpected '\(current)' at position \(position + 1)")
                    }
                    path += "//" + (try compoundSelector())
                }
            }
        }

        private mutating func compoundSelector() throws -> String {
            let start = position
            var element = "*"
            if consume("*") {
                element = "*"
            } else if let current, Self.isNameStart(current) {
                element = Self.asciiLowercased(identifier())
            }
            var predicates = ""
            while let current {
                switch current {
                case "#":
                    position += 1
                    predicates += "[@id=\(XPathLiteral.quote(try requiredIdentifier(for: "'#'")))]"
                case ".":
                    position += 1
                    let name = try requiredIdentifier(for: "'.'")
                    predicates += "[contains(concat(' ', normalize-space(@class), ' '), \(XPathLiteral.quote(" \(name) ")))]"
                case "[":
                    position += 1
                    predicates += try attributeSelector()
                case ":":
                    throw unsupported("pseudo-classes and pseudo-elements such as '\(tokenText(from: position))'")
                case "|":
                    throw unsupported("namespace prefixes ('|')")
                case "\\":
                    throw unsupported("escape sequences ('\\')")
                default:
                    guard position > start else {
                        throw invalid(
                            current == ">" || current == "~" || current == "+"
                                ? "a combinator needs a selector on each side"
                                : "unexpected '\(current)' at position \(position + 1)")
                    }
                    return element + predicates
                }
            }
            guard position > start else { throw invalid("a selector is missing at the end") }
            return element + predicates
        }

        /// After `[`: `attr]` or `attr=value]`.
        private mutating func attributeSelector() throws -> String {
            skipWhitespace()
            guard let first = current, Self.isNameStart(first) else {
                throw invalid("an attribute name is missing after '[' at position \(position)")
            }
            let name = Self.asciiLowercased(identifier())
            skipWhitespace()
            if consume("]") { return "[@\(name)]" }
            if let current, "~|^$*".unicodeScalars.contains(current) {
                throw unsupported("the attribute operator '\(current)='")
            }
            guard consume("=") else {
                throw invalid("expected ']' or '=' after the attribute '\(name)'")
            }
            skipWhitespace()
            let value = try attributeValue()
            skipWhitespace()
            guard consume("]") else {
                throw invalid("expected ']' after the value of '\(name)' (attribute flags are not supported)")
            }
            return "[@\(name)=\(XPathLiteral.quote(value))]"
        }

        private mutating func attributeValue() throws -> String {
            guard let quote = current, quote == "\"" || quote == "'" else {
                return try requiredIdentifier(for: "'='")
            }
            position += 1
            var value = String.UnicodeScalarView()
            while let current, current != quote {
                if current == "\\" { throw unsupported("escape sequences ('\\')") }
                guard Self.isXMLCharacter(current) else {
                    throw invalid(
                        "an attribute value holds a character XML does not allow (U+\(String(current.value, radix: 16, uppercase: true))) at position \(position + 1)"
                    )
                }
                value.append(current)
                position += 1
            }
            guard consume(quote) else { throw invalid("an attribute value is not closed with \(quote)") }
            return String(value)
        }

        private mutating func requiredIdentifier(for prefix: String) throws -> String {
            guard let current, Self.isNameCharacter(current) else {
                throw invalid("a name is missing after \(prefix) at position \(position)")
            }
            return identifier()
        }

        private mutating func identifier() -> String {
            var name = String.UnicodeScalarView()
            while let current, Self.isNameCharacter(current) {
                name.append(current)
                position += 1
            }
            return String(name)
        }

        /// The characters from `start` up to the next separator, for messages.
        private func tokenText(from start: Int) -> String {
            var end = start + 1
            while end < scalars.count, !" \t\n,>~+[.#".unicodeScalars.contains(scalars[end]) {
                end += 1
            }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[start..<end])
            return String(text)
        }

        private mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
            guard current == scalar else { return false }
            position += 1
            return true
        }

        @discardableResult
        private mutating func skipWhitespace() -> Bool {
            let start = position
            while let current, current == " " || current == "\t" || current == "\n" || current == "\r" || current == "\u{0C}" {
                position += 1
            }
            return position > start
        }

        /// XML 1.0 Char: what an XPath literal may hold (libxml2 refuses the
        /// expression otherwise).
        private static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
            default: false
            }
        }

        /// Names that libxml2's XPath parser reads as names: an ASCII letter
        /// or `_` first, or a letter of XML 1.0 (fourth edition), the tables
        /// libxml2 2.9 checks non-ASCII characters against. Any other
        /// character (U+FFFD, say) would make the translation an XPath
        /// expression libxml2 refuses.
        private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII { return scalar.properties.isAlphabetic || scalar == "_" }
            return xmlIsBaseChar(scalar.value) != 0 || xmlIsIdeographic(scalar.value) != 0
        }

        /// libxml2's HTML parser lowers ASCII letters in element and
        /// attribute names and nothing else. Full Unicode lowering could
        /// also turn a name character into one libxml2's XPath parser
        /// refuses (U+04C0 lowers to U+04CF, which XML 1.0's fourth edition
        /// does not have).
        private static func asciiLowercased(_ name: String) -> String {
            var lowered = String.UnicodeScalarView()
            for scalar in name.unicodeScalars {
                lowered.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(UInt8(scalar.value) + 0x20) : scalar)
            }
            return String(lowered)
        }

        private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII { return isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" }
            return isNameStart(scalar) || xmlIsDigit(scalar.value) != 0 || xmlIsCombining(scalar.value) != 0
                || xmlIsExtender(scalar.value) != 0
        }

        private func invalid(_ message: String) -> ExtractionError {
            ExtractionError(code: .invalidSelector, message: message)
        }

        private func unsupported(_ construct: String) -> ExtractionError {
            ExtractionError(
                code: .unsupportedSelector,
                message:
                    "not supported: \(construct); the supported subset is type, *, #id, .class, [attr], [attr=value], descendant or '>' combinators and ',' lists, or XPath"
            )
        }
    }
}
