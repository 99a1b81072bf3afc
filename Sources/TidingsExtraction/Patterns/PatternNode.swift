/// A parsed ignore pattern. Only constructs a linear-time matcher can run:
/// no backreferences, lookaround, atomic groups or possessive quantifiers.
indirect enum PatternNode: Equatable {
    case empty
    case scalars(ScalarSet)
    case assertion(PatternAssertion)
    case concatenation([PatternNode])
    case alternation([PatternNode])
    case repetition(PatternNode, minimum: Int, maximum: Int?, lazy: Bool)
}

/// Zero-width conditions on the position between two scalars.
enum PatternAssertion: Equatable {
    case textStart, textEnd
    /// `^` and `$` under `(?m)`: also after and before a line feed.
    case lineStart, lineEnd
    case wordBoundary, notWordBoundary

    func holds(before previous: Unicode.Scalar?, after next: Unicode.Scalar?) -> Bool {
        switch self {
        case .textStart: previous == nil
        case .textEnd: next == nil
        case .lineStart: previous == nil || previous == "\n"
        case .lineEnd: next == nil || next == "\n"
        case .wordBoundary: ScalarSet.isWord(previous) != ScalarSet.isWord(next)
        case .notWordBoundary: ScalarSet.isWord(previous) == ScalarSet.isWord(next)
        }
    }
}

/// The scalars one step of a pattern accepts: a literal, `.`, a class such
/// as `[a-z\d]` or an escape such as `\w`, possibly negated or
/// case-insensitive.
struct ScalarSet: Equatable {
    enum Property: Equatable {
        /// Unicode decimal digits (`\d`).
        case digit
        /// Letters, marks, decimal digits and connector punctuation (`\w`).
        case word
        /// Unicode white space (`\s`).
        case space
        /// Anything but a line terminator (`.` without `(?s)`).
        case notNewline
        case any
    }

    var ranges: [ClosedRange<UInt32>] = []
    /// Each entry matches when the property holds, or when it does not if
    /// its flag is set (`\D` is `(.digit, true)`).
    var properties: [(property: Property, negated: Bool)] = []
    var negated = false
    var caseInsensitive = false

    static func == (lhs: ScalarSet, rhs: ScalarSet) -> Bool {
        lhs.ranges == rhs.ranges && lhs.negated == rhs.negated && lhs.caseInsensitive == rhs.caseInsensitive
            && lhs.properties.elementsEqual(rhs.properties) { $0.property == $1.property && $0.negated == $1.negated }
    }

    static func scalar(_ scalar: Unicode.Scalar, caseInsensitive: Bool) -> ScalarSet {
        ScalarSet(ranges: [scalar.value...scalar.value], caseInsensitive: caseInsensitive)
    }

    static func property(_ property: Property, negated: Bool = false) -> ScalarSet {
        ScalarSet(properties: [(property, negated)])
    }

    func matches(_ scalar: Unicode.Scalar) -> Bool {
        var found = contains(scalar)
        if !found && caseInsensitive {
            found = Self.caseVariants(of: scalar).contains(where: contains)
        }
        return found != negated
    }

    private func contains(_ scalar: Unicode.Scalar) -> Bool {
        for range in ranges where range.contains(scalar.value) { return true }
        for (property, negated) in properties where Self.has(property, scalar) != negated { return true }
        return false
    }

    private static func has(_ property: Property, _ scalar: Unicode.Scalar) -> Bool {
        switch property {
        case .digit: scalar.properties.numericType == .decimal
        case .word: isWord(scalar)
        case .space: scalar.properties.isWhitespace
        case .notNewline: !isNewline(scalar)
        case .any: true
        }
    }

    static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) || value == 0x5F
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .decimalNumber, .connectorPunctuation, .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return properties.isAlphabetic
        }
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    /// The simple lower- and upper-case mappings that are single scalars.
    private static func caseVariants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        var variants: [Unicode.Scalar] = []
        for mapping in [scalar.properties.lowercaseMapping, scalar.properties.uppercaseMapping] {
            let scalars = mapping.unicodeScalars
            if scalars.count == 1, let variant = scalars.first, variant != scalar { variants.append(variant) }
        }
        return variants
    }
}
