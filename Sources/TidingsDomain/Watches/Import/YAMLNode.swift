/// A value of the YAML subset `YAMLSubsetParser` reads.
enum YAMLNode: Equatable {
    case null
    case scalar(String)
    case sequence([YAMLNode])
    /// Keys in file order (urlwatch's files are small; a list keeps order).
    case mapping([(key: String, value: YAMLNode)])

    static func == (lhs: YAMLNode, rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.scalar(let a), .scalar(let b)): a == b
        case (.sequence(let a), .sequence(let b)): a == b
        case (.mapping(let a), .mapping(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    subscript(key: String) -> YAMLNode? {
        guard case .mapping(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    var text: String? {
        if case .scalar(let text) = self { return text }
        return nil
    }
}
