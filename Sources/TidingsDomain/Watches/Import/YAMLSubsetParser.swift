/// The part of YAML that urlwatch's `urls.yaml` uses: documents split by
/// `---`, block mappings and sequences by indentation, plain, single- and
/// double-quoted scalars, comments, and the empty flow forms `[]` and `{}`.
///
/// Anchors, aliases, tags, block scalars and other flow collections are
/// refused, not skipped: aliases are how a small YAML file expands into a
/// huge one ("billion laughs"), and the rest have no use in a job list.
/// Depth, lines and nodes are bounded (`WatchImportLimits`), and the
/// parser's work is linear in the file.
import Foundation

struct YAMLSubsetParser {
    private struct Line {
        let number: Int
        var indent: Int
        var content: Substring
    }

    private var lines: [Line] = []
    private var position = 0
    private var nodes = 0

    /// Every non-empty document of `text`, in order.
    static func documents(_ text: String) throws(WatchImportError) -> [YAMLNode] {
        var documents: [YAMLNode] = []
        var parser = YAMLSubsetParser()
        var lineNumber = 0
        var pending: [Line] = []
        func finish() throws(WatchImportError) {
            defer { pending = [] }
            guard !pending.isEmpty else { return }
            parser.lines = pending
            parser.position = 0
            let root = try parser.block(depth: 0)
            if parser.position < parser.lines.count {
                throw WatchImportError("line \(parser.lines[parser.position].number): unexpected indentation")
            }
            documents.append(root)
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            guard lineNumber <= WatchImportLimits.maximumLines else {
                throw WatchImportError("the file has more than \(WatchImportLimits.maximumLines) lines")
            }
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line == "---" || line.hasPrefix("--- ") || line == "..." {
                try finish()
                continue
            }
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if content.first == "\t" { throw WatchImportError("line \(lineNumber): tabs cannot indent YAML") }
            if content.allSatisfy({ $0 == " " || $0 == "\t" }) || content.first == "#" { continue }
            if content.hasPrefix("%") { throw WatchImportError("line \(lineNumber): YAML directives are not read") }
            pending.append(Line(number: lineNumber, indent: indent, content: content))
        }
        try finish()
        return documents
    }

    private mutating func count() throws(WatchImportError) {
        nodes += 1
        if nodes > WatchImportLimits.maximumEntries * 64 { throw WatchImportError("the file has too many YAML values") }
    }

    private mutating func block(depth: Int) throws(WatchImportError) -> YAMLNode {
        guard depth < WatchImportLimits.maximumDepth else {
            throw WatchImportError("line \(lines[position].number): nested deeper than \(WatchImportLimits.maximumDepth) levels")
        }
        try count()
        let line = lines[position]
        if Self.isSequenceItem(line.content) { return try sequence(indent: line.indent, depth: depth) }
        if Self.keySplit(line.content) != nil { return try mapping(indent: line.indent, depth: depth) }
        position += 1
        return try Self.scalar(line.content, line: line.number)
    }

    private mutating func sequence(indent: Int, depth: Int) throws(WatchImportError) -> YAMLNode {
        var items: [YAMLNode] = []
        while position < lines.count, lines[position].indent == indent, Self.isSequenceItem(lines[position].content) {
            let line = lines[position]
            let rest = line.content.dropFirst().drop { $0 == " " }
            if rest.isEmpty {
                position += 1
                items.append(try nested(under: indent, depth: depth))
            } else {
                // `- key: value` opens a mapping whose keys line up with `key`.
                lines[position].indent = indent + (line.content.count - rest.count)
                lines[position].content = rest
                items.append(try block(depth: depth + 1))
            }
        }
        return .sequence(items)
    }

    private mutating func mapping(indent: Int, depth: Int) throws(WatchImportError) -> YAMLNode {
        var pairs: [(key: String, value: YAMLNode)] = []
        while position < lines.count, lines[position].indent == indent, !Self.isSequenceItem(lines[position].content) {
            let line = lines[position]
            guard let (rawKey, rawValue) = Self.keySplit(line.content) else {
                throw WatchImportError("line \(line.number): expected \"key: value\"")
            }
            guard case .scalar(let key) = try Self.scalar(rawKey, line: line.number) else {
                throw WatchImportError("line \(line.number): a key must be a scalar")
            }
            if pairs.contains(where: { $0.key == key }) { throw WatchImportError("line \(line.number): \(key) appears twice") }
            position += 1
            let value: YAMLNode
            if rawValue.isEmpty {
                // A sequence may sit at its key's own indentation.
                if position < lines.count, lines[position].indent == indent, Self.isSequenceItem(lines[position].content) {
                    try count()
                    value = try sequence(indent: indent, depth: depth + 1)
                } else {
                    value = try nested(under: indent, depth: depth)
                }
            } else {
                try count()
                value = try Self.scalar(rawValue, line: line.number)
            }
            pairs.append((key, value))
        }
        return .mapping(pairs)
    }

    /// The block indented under a line, or null when the next line is not.
    private mutating func nested(under indent: Int, depth: Int) throws(WatchImportError) -> YAMLNode {
        guard position < lines.count, lines[position].indent > indent else { return .null }
        return try block(depth: depth + 1)
    }

    private static func isSequenceItem(_ content: Substring) -> Bool {
        content == "-" || content.hasPrefix("- ")
    }

    /// `key: value` split at the first `: ` (or a final `:`) outside quotes.
    private static func keySplit(_ content: Substring) -> (Substring, Substring)? {
        var quote: Character?
        var index = content.startIndex
        while index < content.endIndex {
            let character = content[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                if index == content.startIndex { quote = character }
            } else if character == "#", index > content.startIndex, content[content.index(before: index)] == " " {
                return nil
            } else if character == ":" {
                let next = content.index(after: index)
                if next == content.endIndex || content[next] == " " {
                    return (content[..<index], content[next...].drop { $0 == " " })
                }
            }
            index = content.index(after: index)
        }
        return nil
    }

    private static func scalar(_ raw: Substring, line: Int) throws(WatchImportError) -> YAMLNode {
        guard let first = raw.first else { return .null }
        switch first {
        case "\"": return .scalar(try doubleQuoted(raw, line: line))
        case "'": return .scalar(try singleQuoted(raw, line: line))
        case "&", "*", "!":
            throw WatchImportError("line \(line): YAML anchors, aliases and tags are not read")
        case "|", ">":
            throw WatchImportError("line \(line): YAML block scalars are not read")
        case "[", "{":
            let flow = withoutComment(raw)
            if flow == "[]" { return .sequence([]) }
            if flow == "{}" { return .mapping([]) }
            throw WatchImportError("line \(line): YAML flow collections are not read; write the list or mapping as a block")
        default:
            let text = withoutComment(raw)
            return text == "~" || text == "null" || text.isEmpty ? .null : .scalar(String(text))
        }
    }

    private static func withoutComment(_ raw: Substring) -> Substring {
        var text = raw
        if let marker = raw.range(of: " #") { text = raw[..<marker.lowerBound] }
        while text.last == " " { text = text.dropLast() }
        return text
    }

    private static func singleQuoted(_ raw: Substring, line: Int) throws(WatchImportError) -> String {
        var text = ""
        var index = raw.index(after: raw.startIndex)
        while index < raw.endIndex {
            let character = raw[index]
            index = raw.index(after: index)
            if character == "'" {
                if index < raw.endIndex, raw[index] == "'" {
                    text.append("'")
                    index = raw.index(after: index)
                    continue
                }
                try requireEnd(raw[index...], line: line)
                return text
            }
            text.append(character)
        }
        throw WatchImportError("line \(line): a quoted string does not end on its line")
    }

    private static func doubleQuoted(_ raw: Substring, line: Int) throws(WatchImportError) -> String {
        var text = ""
        var scalars = raw.unicodeScalars.dropFirst().makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\"":
                var rest = String.UnicodeScalarView()
                while let remaining = scalars.next() { rest.append(remaining) }
                try requireEnd(Substring(String(rest)), line: line)
                return text
            case "\\":
                guard let escaped = scalars.next() else { break }
                switch escaped {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "\\", "\"", "/": text.unicodeScalars.append(escaped)
                case "u":
                    var hex = ""
                    for _ in 0..<4 { if let digit = scalars.next() { hex.unicodeScalars.append(digit) } }
                    guard let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) else {
                        throw WatchImportError("line \(line): a \\u escape needs four hexadecimal digits")
                    }
                    text.unicodeScalars.append(decoded)
                default:
                    throw WatchImportError("line \(line): unknown escape in a double-quoted string")
                }
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        throw WatchImportError("line \(line): a quoted string does not end on its line")
    }

    private static func requireEnd(_ rest: Substring, line: Int) throws(WatchImportError) {
        let trimmed = rest.drop { $0 == " " }
        guard trimmed.isEmpty || trimmed.first == "#" else {
            throw WatchImportError("line \(line): text after a quoted string")
        }
    }
}
