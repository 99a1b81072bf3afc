/// The parts of a `Content-Type` header value extraction needs.
enum ContentType {
    /// The media type, lower case and without parameters ("" for none).
    static func mediaType(in contentType: String?) -> String {
        guard let contentType, let type = contentType.split(separator: ";", omittingEmptySubsequences: false).first else { return "" }
        return String(type.trimmingWhitespace).lowercased()
    }

    /// The `charset` parameter, unquoted, or nil.
    static func charset(in contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace.lowercased() == "charset" else { continue }
            var value = pair[1].trimmingWhitespace
            if value.count >= 2, value.first == "\"", value.last == "\"" {
                value = value.dropFirst().dropLast()
            }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return self[first...last]
    }
}
