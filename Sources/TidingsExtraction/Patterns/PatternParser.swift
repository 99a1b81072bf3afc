/// Parses the ignore-pattern syntax: a subset of Swift `Regex` (and PCRE)
/// that runs in time linear in the text (see docs/decisions/0002). Anything
/// outside it is refused with a message naming the construct.
struct PatternParser {
    struct Problem: Error, Equatable {
        let message: String
    }

    /// Repetition counts above this are refused (`a{1001}`), as RE2 does.
    static let maximumRepetition = 1000

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var flags = Flags()

    private struct Flags {
        var caseInsensitive = false
        var multiline = false
        var dotMatchesNewlines = false
    }

    static func parse(_ pattern: String) throws(Problem) -> PatternNode {
        var parser = PatternParser(scalars: Array(pattern.unicodeScalars))
        let node = try parser.alternation()
        if parser.position < parser.scalars.count {
            // Only an unmatched `)` stops the top-level alternation early.
            throw Problem(message: "has an unmatched ')'")
        }
        return node
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private var current: Unicode.Scalar? {
        position < scalars.count ? scalars[position] : nil
    }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    // MARK: Structure

    private mutating func alternation() throws(Problem) -> PatternNode {
        var branches = [try concatenation()]
        while current == "|" {
            position += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(Problem) -> PatternNode {
        var items: [PatternNode] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            if let atom = try atom() {
                items.append(try quantified(atom))
            }
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    private mutating func quantified(_ atom: PatternNode) throws(Problem) -> PatternNode {
        guard let (minimum, maximum) = try quantifier() else { return atom }
        if case .assertion = atom { throw Problem(message: "repeats an anchor or boundary, which matches no text") }
        var lazy = false
        if current == "?" {
            lazy = true
            position += 1
        } else if current == "+" {
            throw Problem(message: "uses a possessive quantifier, which is not supported")
        }
        if let (_, _) = try quantifier() {
            throw Problem(message: "has two quantifiers in a row; group the first, as in (a+)*")
        }
        return .repetition(atom, minimum: minimum, maximum: maximum, lazy: lazy)
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`; a `{` that starts none of
    /// these is a literal brace.
    private mutating func quantifier() throws(Problem) -> (Int, Int?)? {
        switch current {
        case "*":
            position += 1
            return (0, nil)
        case "+":
            position += 1
            return (1, nil)
        case "?":
            position += 1
            return (0, 1)
        case "{":
            let start = position
            position += 1
            let minimum = number()
            var maximum = minimum
            if current == "," {
                position += 1
                maximum = number()
                guard minimum != nil || maximum != nil else {
                    position = start
                    return nil
                }
            } else if minimum == nil {
                position = start
                return nil
            }
            guard current == "}" else {
                position = start
                return nil
            }
            position += 1
            let low = minimum ?? 0
            if low > Self.maximumRepetition || (maximum ?? 0) > Self.maximumRepetition {
                throw Problem(message: "repeats more than \(Self.maximumRepetition) times")
            }
            if let maximum, maximum < low {
                throw Problem(message: "has a repetition {\(low),\(maximum)} whose maximum is below its minimum")
            }
            return (low, maximum)
        default:
            return nil
        }
    }

    /// Decimal digits, saturating above the repetition limit; nil if none.
    private mutating func number() -> Int? {
        var value: Int?
        while let scalar = current, let digit = Self.digitValue(scalar) {
            value = min((value ?? 0) * 10 + digit, Self.maximumRepetition + 1)
            position += 1
        }
        return value
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        (0x30...0x39).contains(scalar.value) ? Int(scalar.value - 0x30) : nil
    }

    // MARK: Atoms

    /// One atom, or nil for a flag group such as `(?i)` that only changes
    /// how the rest of its group is read.
    private mutating func atom() throws(Problem) -> PatternNode? {
        guard let scalar = current else { throw Problem(message: "ends unexpectedly") }
        position += 1
        switch scalar {
        case "(": return try group()
        case "[": return .scalars(try characterClass())
        case ".": return .scalars(.property(flags.dotMatchesNewlines ? .any : .notNewline))
        case "^": return .assertion(flags.multiline ? .lineStart : .textStart)
        case "$": return .assertion(flags.multiline ? .lineEnd : .textEnd)
        case "\\": return try escape()
        case "*", "+", "?": throw Problem(message: "has a quantifier '\(scalar)' with nothing to repeat")
        default: return .scalars(.scalar(scalar, caseInsensitive: flags.caseInsensitive))
        }
    }

    private mutating func group() throws(Problem) -> PatternNode? {
        let saved = flags
        if current == "?" {
            position += 1
            switch current {
            case ":":
                position += 1
            case "<" where peek(1) != "=" && peek(1) != "!", "P", "'":
                try groupName()
            case "=", "!", "<":
                throw Problem(message: "uses a lookahead or lookbehind, which is not supported")
            case ">":
                throw Problem(message: "uses an atomic group, which is not supported")
            default:
                if try flagGroup() {
                    // `(?i)`: the flags hold until the enclosing group ends.
                    return nil
                }
            }
        }
        let inner = try alternation()
        guard current == ")" else { throw Problem(message: "has an unclosed '('") }
        position += 1
        flags = saved
        return inner
    }

    /// `(?<name>`, `(?P<name>`, `(?'name'`: named like any group, matched
    /// like one (captures play no part in removing text).
    private mutating func groupName() throws(Problem) {
        if current == "P" { position += 1 }
        let close: Unicode.Scalar = current == "'" ? "'" : ">"
        guard current == "<" || current == "'" else { throw Problem(message: "has an unsupported group syntax '(?P'") }
        position += 1
        let start = position
        while let scalar = current, scalar != close, ScalarSet.isWord(scalar) { position += 1 }
        guard current == close, position > start else { throw Problem(message: "has a malformed group name") }
        position += 1
    }

    /// Reads `i`, `m`, `s` flags, optionally after `-` to turn them off,
    /// then `)` (true: the flags apply from here) or `:` (false: a group).
    private mutating func flagGroup() throws(Problem) -> Bool {
        var enable = true
        var sawFlag = false
        while let scalar = current {
            position += 1
            switch scalar {
            case "i": flags.caseInsensitive = enable
            case "m": flags.multiline = enable
            case "s": flags.dotMatchesNewlines = enable
            case "-" where enable: enable = false
            case ")" where sawFlag: return true
            case ":" where sawFlag: return false
            default:
                throw Problem(
                    message: "uses a group option '(?\(scalar)' that is not supported (only (?:...), named groups and the flags i, m, s)")
            }
            sawFlag = true
        }
        throw Problem(message: "has an unclosed '('")
    }

    // MARK: Escapes and classes

    private enum Escape {
        case scalar(Unicode.Scalar)
        case set(ScalarSet)
        case assertion(PatternAssertion)
    }

    private mutating func escape() throws(Problem) -> PatternNode {
        switch try escapeSequence(inClass: false) {
        case .scalar(let scalar): return .scalars(.scalar(scalar, caseInsensitive: flags.caseInsensitive))
        case .set(let set): return .scalars(set)
        case .assertion(let assertion): return .assertion(assertion)
        }
    }

    /// The escape after a backslash.
    private mutating func escapeSequence(inClass: Bool) throws(Problem) -> Escape {
        guard let scalar = current else { throw Problem(message: "ends with a lone backslash") }
        position += 1
        switch scalar {
        case "d": return .set(.property(.digit))
        case "D": return .set(.property(.digit, negated: true))
        case "w": return .set(.property(.word))
        case "W": return .set(.property(.word, negated: true))
        case "s": return .set(.property(.space))
        case "S": return .set(.property(.space, negated: true))
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "t": return .scalar("\t")
        case "f": return .scalar("\u{0C}")
        case "v": return .scalar("\u{0B}")
        case "e": return .scalar("\u{1B}")
        case "a": return .scalar("\u{07}")
        case "0" where current.flatMap(Self.digitValue) == nil: return .scalar("\u{00}")
        case "x", "u": return .scalar(try hexScalar(fixedDigits: scalar == "x" ? 2 : 4))
        case "b" where !inClass: return .assertion(.wordBoundary)
        case "B" where !inClass: return .assertion(.notWordBoundary)
        case "A" where !inClass: return .assertion(.textStart)
        case "z" where !inClass: return .assertion(.textEnd)
        case "1"..."9", "k", "g":
            throw Problem(message: "uses a backreference, which is not supported")
        case "p", "P":
            throw Problem(message: "uses a Unicode property class \\\(scalar), which is not supported")
        default:
            if scalar.isASCII && ScalarSet.isWord(scalar) {
                throw Problem(message: "uses an unknown or unsupported escape \\\(scalar)")
            }
            return .scalar(scalar)
        }
    }

    /// `\xHH`, `\uHHHH` or either with braces: `\x{1F600}`.
    private mutating func hexScalar(fixedDigits: Int) throws(Problem) -> Unicode.Scalar {
        var value: UInt32 = 0
        var digits = 0
        let braced = current == "{"
        if braced { position += 1 }
        while digits < 8, let scalar = current, let digit = Self.hexValue(scalar) {
            value = value << 4 | digit
            digits += 1
            position += 1
            if !braced && digits == fixedDigits { break }
        }
        if braced {
            guard current == "}" else { throw Problem(message: "has a malformed \\x{...} or \\u{...} escape") }
            position += 1
        }
        guard digits > 0, braced || digits == fixedDigits, let scalar = Unicode.Scalar(value) else {
            throw Problem(message: "has a malformed hexadecimal escape")
        }
        return scalar
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46: scalar.value - 0x41 + 10
        case 0x61...0x66: scalar.value - 0x61 + 10
        default: nil
        }
    }

    /// After `[`: members up to the closing `]`. A `]` first is a member;
    /// `-` first or last is a member. Nested classes and set operations
    /// are refused rather than read differently from Swift `Regex`.
    private mutating func characterClass() throws(Problem) -> ScalarSet {
        var set = ScalarSet(caseInsensitive: flags.caseInsensitive)
        if current == "^" {
            set.negated = true
            position += 1
        }
        var first = true
        while true {
            guard let scalar = current else { throw Problem(message: "has an unclosed '['") }
            if scalar == "]" && !first {
                position += 1
                return set
            }
            first = false
            if scalar == "[" {
                throw Problem(message: "has '[' inside a character class (nested classes and [:name:] are not supported; write \\[)")
            }
            if scalar == "&" && peek(1) == "&" || scalar == "-" && peek(1) == "-" || scalar == "~" && peek(1) == "~" {
                throw Problem(message: "uses a character class set operation, which is not supported")
            }
            let low = try classMember()
            guard case .scalar(let lower) = low, current == "-", let next = peek(1), next != "]" else {
                switch low {
                case .scalar(let member): set.ranges.append(member.value...member.value)
                case .set(let members):
                    set.properties.append(contentsOf: members.properties)
                case .assertion: break
                }
                continue
            }
            position += 1
            guard case .scalar(let upper) = try classMember() else {
                throw Problem(message: "has a range in a character class that ends in a class escape")
            }
            guard lower.value <= upper.value else {
                throw Problem(message: "has a character class range \(lower)-\(upper) that runs backwards")
            }
            set.ranges.append(lower.value...upper.value)
        }
    }

    private mutating func classMember() throws(Problem) -> Escape {
        guard let scalar = current else { throw Problem(message: "has an unclosed '['") }
        position += 1
        return scalar == "\\" ? try escapeSequence(inClass: true) : .scalar(scalar)
    }
}
