/// RFC 3986 5.2.4 "remove dot segments" for an absolute path: `/a/./b/../c`
/// becomes `/a/c`; `..` never climbs above the root. Runs after percent
/// normalization so that `%2E` counts as a dot.
enum DotSegments {
    static func remove(from path: String) -> String {
        var output: [Substring] = []
        // A path ending in "." or ".." names a directory: keep its slash.
        var endsWithSlash = false
        for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            switch segment {
            case ".":
                endsWithSlash = true
            case "..":
                _ = output.popLast()
                endsWithSlash = true
            default:
                output.append(segment)
                endsWithSlash = false
            }
        }
        let joined = "/" + output.joined(separator: "/")
        return endsWithSlash && !output.isEmpty ? joined + "/" : joined
    }
}
