import TidingsCompression
import TidingsExtraction

/// changedetection.io's datastore: `url-watches.json` (`{"watching":
/// {uuid: watch}, "settings": {...}}`), or a backup zip holding it or,
/// since 0.50, `changedetection.json` and a `<uuid>/watch.json` per watch.
/// Each watch's `url`, `title`, `include_filters` (CSS, or XPath when it starts with `/` or `xpath:`), `ignore_text`,
/// `time_between_check`, `headers` and `paused` map; the rest (history,
/// notifications, browser steps) stays behind.
enum ChangedetectionBackup {
    static func entries(from body: [UInt8]) throws(WatchImportError) -> [WatchImportEntry] {
        let parsed = ZipArchive.looksLikeZip(body) ? try datastore(inBackup: body) : try? JSONValue(parsing: body)
        guard case .object(let document)? = parsed else {
            throw WatchImportError("the file is not a JSON object")
        }
        guard case .object(let watching)? = document["watching"] else {
            throw WatchImportError("watching: must be an object of watches (changedetection.io's url-watches.json)")
        }
        guard watching.count <= WatchImportLimits.maximumEntries else {
            throw WatchImportError("the file has \(watching.count) watches; an import takes at most \(WatchImportLimits.maximumEntries)")
        }
        let defaultInterval = interval(
            of: document["settings"].flatMap { settings in
                if case .object(let settings) = settings, case .object(let requests)? = settings["requests"] {
                    return requests["time_between_check"]
                }
                return nil
            })
        // The file's order is its uuids' order; sorted, an import of the
        // same file numbers its entries the same way.
        return watching.keys.sorted().enumerated().map { index, key in
            entry(watching[key] ?? .null, index: index, defaultInterval: defaultInterval)
        }
    }

    /// The datastore of a backup zip as one `url-watches.json` document:
    /// that file itself (older versions, at the zip's root or the
    /// shallowest one), or the settings of `changedetection.json` with
    /// every `<uuid>/watch.json` (since 0.50). Nothing else in the zip is
    /// decompressed.
    private static func datastore(inBackup zip: [UInt8]) throws(WatchImportError) -> JSONValue? {
        let files: [(name: String, contents: [UInt8])]
        do {
            files = try ZipArchive(zip).contents(ofEntriesWhere: { name in
                name == "url-watches.json" || name == "changedetection.json" || isWatchFile(name)
            })
        } catch {
            throw WatchImportError("the zip \(error.message)")
        }
        if let legacy = files.first(where: { $0.name == "url-watches.json" }) { return try? JSONValue(parsing: legacy.contents) }
        var document: [String: JSONValue] = [:]
        if let settings = files.first(where: { $0.name == "changedetection.json" }),
            case .object(let stored)? = try? JSONValue(parsing: settings.contents)
        {
            document["settings"] = stored["settings"]
        }
        var watching: [String: JSONValue] = [:]
        for file in files where isWatchFile(file.name) {
            watching[String(file.name.prefix { $0 != "/" })] = (try? JSONValue(parsing: file.contents)) ?? .null
        }
        guard document["settings"] != nil || !watching.isEmpty else {
            throw WatchImportError("the zip holds neither url-watches.json nor changedetection.json with watch.json files")
        }
        document["watching"] = .object(watching)
        return .object(document)
    }

    /// `<uuid>/watch.json`: one directory level, as backups write it.
    private static func isWatchFile(_ name: String) -> Bool {
        name.hasSuffix("/watch.json") && name.utf8.filter { $0 == UInt8(ascii: "/") }.count == 1
    }

    private static func entry(_ value: JSONValue, index: Int, defaultInterval: Int?) -> WatchImportEntry {
        guard case .object(let watch) = value else {
            return WatchImportEntry(index: index, url: nil, content: .rejected(reason: "is not an object"))
        }
        guard case .string(let url)? = watch["url"] else {
            return WatchImportEntry(index: index, url: nil, content: .rejected(reason: "url: is required"))
        }
        func reject(_ reason: String) -> WatchImportEntry {
            WatchImportEntry(index: index, url: url, content: .rejected(reason: reason))
        }
        var draft = ImportedWatchDraft(url: url)
        if case .string(let title)? = watch["title"], !title.isEmpty { draft.name = title }
        if case .bool(true)? = watch["paused"] { draft.paused = true }
        let usesDefault = watch["time_between_check_use_default"] == .bool(true)
        draft.intervalSeconds = (usesDefault ? nil : interval(of: watch["time_between_check"])) ?? defaultInterval

        var selectors: [ImportedWatchDraft.Selector] = []
        if case .array(let filters)? = watch["include_filters"] {
            for case .string(let filter) in filters where !filter.isEmpty { selectors.append(selector(filter)) }
        }
        switch combined(selectors) {
        case .success(let selector): draft.selector = selector
        case .failure(let problem): return reject(problem.message)
        }
        if case .array(let lines)? = watch["ignore_text"] {
            draft.ignorePatterns = lines.compactMap { line in
                guard case .string(let text) = line, !text.isEmpty else { return nil }
                return ignorePattern(text)
            }
        }
        // Tidings ignores text within a selected part; a whole page's text
        // is the body's.
        if draft.selector == nil && !draft.ignorePatterns.isEmpty { draft.selector = .css("body") }
        if case .object(let headers)? = watch["headers"] {
            for name in headers.keys.sorted() {
                guard case .string(let value)? = headers[name] else { return reject("headers.\(name): must be a string") }
                draft.headers.append((name, value))
            }
        }
        return WatchImportEntry(index: index, url: url, content: .watch(json: draft.json))
    }

    /// `{"weeks": .., "days": .., "hours": .., "minutes": .., "seconds": ..}`
    /// in seconds; nil when every part is empty or a part is not a count.
    static func interval(of value: JSONValue?) -> Int? {
        guard case .object(let parts)? = value else { return nil }
        let units: [(String, Int64)] = [("weeks", 604_800), ("days", 86_400), ("hours", 3_600), ("minutes", 60), ("seconds", 1)]
        var total: Int64 = 0
        for (unit, seconds) in units {
            guard let part = parts[unit], part != .null else { continue }
            guard case .integer(let count) = part, (0...1_000_000).contains(count) else { return nil }
            total += count * seconds
        }
        return total > 0 ? Int(clamping: total) : nil
    }

    private static func selector(_ filter: String) -> ImportedWatchDraft.Selector {
        for prefix in ["xpath:", "xpath1:"] where filter.hasPrefix(prefix) {
            return .xpath(String(filter.dropFirst(prefix.count)))
        }
        return filter.hasPrefix("/") || filter.hasPrefix("(") ? .xpath(filter) : .css(filter)
    }

    /// changedetection.io keeps what any filter matches: a CSS selector
    /// list or an XPath union says the same. Mixed kinds have no one form.
    private static func combined(_ selectors: [ImportedWatchDraft.Selector]) -> Result<ImportedWatchDraft.Selector?, WatchImportError> {
        var css: [String] = []
        var xpath: [String] = []
        for selector in selectors {
            switch selector {
            case .css(let text): css.append(text)
            case .xpath(let text): xpath.append(text)
            }
        }
        if !css.isEmpty && !xpath.isEmpty {
            return .failure(WatchImportError("include_filters: mixes CSS and XPath filters; a Tidings watch takes one selector"))
        }
        if !css.isEmpty { return .success(.css(css.joined(separator: ", "))) }
        if !xpath.isEmpty { return .success(.xpath(xpath.joined(separator: " | "))) }
        return .success(nil)
    }

    /// A line of `ignore_text`: `/regex/` as is, else the text itself,
    /// matched without regard to case as changedetection.io does.
    static func ignorePattern(_ line: String) -> String {
        if line.count > 2, line.hasPrefix("/"), line.hasSuffix("/") {
            return String(line.dropFirst().dropLast())
        }
        var pattern = "(?i)"
        for character in line {
            if "\\^$.|?*+()[]{}".contains(character) { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern
    }
}
