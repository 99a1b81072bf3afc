/// Header fields in the order they were added. Lookups ignore ASCII case, as
/// HTTP field names are case-insensitive.
package struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (name: String, value: String)

    private var fields: [Element]

    package init() {
        fields = []
    }

    package init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    package var count: Int { fields.count }

    package var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field `name`, if present.
    package subscript(_ name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the field `name`, in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    package func contains(name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    package mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every existing value of `name` with this one, keeping the
    /// position of the first, or appends it.
    package mutating func replaceOrAdd(name: String, value: String) {
        guard let first = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) else {
            add(name: name, value: value)
            return
        }
        fields[first].value = value
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if Self.namesMatch(fields[index].name, name) {
                fields.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    package mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    package func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// Compares without allocating lowercased copies: this runs for every
    /// header lookup on the request path.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        var lhsBytes = lhs.utf8.makeIterator()
        var rhsBytes = rhs.utf8.makeIterator()
        while true {
            switch (lhsBytes.next(), rhsBytes.next()) {
            case (nil, nil):
                return true
            case (let left?, let right?):
                if left != right && asciiLowercased(left) != asciiLowercased(right) {
                    return false
                }
            default:
                return false
            }
        }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }
}
