/// An ordered set of label pairs identifying one series of a metric.
/// Labels must have low cardinality: route templates, never raw paths or ids.
package struct MetricLabels: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    package let pairs: [(name: String, value: String)]

    package init(_ pairs: [(String, String)]) {
        // Sorted in place: label sets are built on every recorded request,
        // and most arrive in order already.
        var labeled = pairs.map { (name: $0.0, value: $0.1) }
        labeled.sort { $0.name < $1.name }
        self.pairs = labeled
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    package static func == (lhs: MetricLabels, rhs: MetricLabels) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.name)
            hasher.combine(pair.value)
        }
    }

    /// `{name="value",...}` or the empty string when there are no labels.
    var rendered: String {
        if pairs.isEmpty { return "" }
        return "{" + pairs.map { "\($0.name)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
    }

    func rendered(adding name: String, _ value: String) -> String {
        let all = pairs.map { "\($0.name)=\"\(Self.escape($0.value))\"" } + ["\(name)=\"\(Self.escape(value))\""]
        return "{" + all.joined(separator: ",") + "}"
    }

    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
