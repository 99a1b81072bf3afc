import FoundationEssentials

/// Where a redirect leads, for callers that follow redirects themselves
/// (the poller does, so that each hop is scoped and counted by its own
/// origin and host).
package enum RedirectLocation {
    /// Statuses whose `Location` is followed with a GET.
    package static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The absolute http(s) URL a `Location` value names, resolved against
    /// the URL that answered, without its fragment; nil when it names none.
    package static func resolve(_ location: String, against base: String) -> String? {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let trimmed = String(location.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
        guard !trimmed.isEmpty, trimmed.utf8.count <= 8192,
            !trimmed.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x20 }),
            let baseURL = URL(string: base),
            let resolved = URL(string: trimmed, relativeTo: baseURL)?.absoluteURL
        else { return nil }
        var text = resolved.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        guard HTTPOrigin(url: text) != nil else { return nil }
        return text
    }
}
