/// urlwatch's `urls.yaml`: one job per YAML document. A URL job's `url`
/// (or a browser job's `navigate`), `name`, `headers` and its `css` or
/// `xpath` filter map; filters that only reformat text are left out
/// (Tidings compares readable text already); a shell job, a POST job, or a
/// filter that changes what is compared is rejected with the reason.
enum URLWatchJobs {
    /// Filters whose work Tidings' readable text does or makes moot.
    private static let reformattingFilters: Set<String> = [
        "html2text", "strip", "beautify", "pretty-xml", "format-json", "format-xml", "remove-duplicate-lines",
    ]

    static func entries(from body: [UInt8]) throws(WatchImportError) -> [WatchImportEntry] {
        guard let text = String(validating: body, as: UTF8.self) else { throw WatchImportError("the file is not UTF-8 text") }
        let documents = try YAMLSubsetParser.documents(text)
        guard documents.count <= WatchImportLimits.maximumEntries else {
            throw WatchImportError("the file has \(documents.count) jobs; an import takes at most \(WatchImportLimits.maximumEntries)")
        }
        return documents.enumerated().map { index, job in entry(job, index: index) }
    }

    private static func entry(_ job: YAMLNode, index: Int) -> WatchImportEntry {
        guard case .mapping = job else {
            return WatchImportEntry(index: index, url: nil, content: .rejected(reason: "is not a mapping of job settings"))
        }
        let url = job["url"]?.text ?? job["navigate"]?.text
        func reject(_ reason: String) -> WatchImportEntry {
            WatchImportEntry(index: index, url: url, content: .rejected(reason: reason))
        }
        if job["command"] != nil { return reject("command: runs a shell command; Tidings watches fetch URLs") }
        guard let url else { return reject("url: is required") }
        if job["data"] != nil || (job["method"]?.text.map { $0.uppercased() != "GET" } ?? false) {
            return reject("method: sends a request body; Tidings watches fetch with GET")
        }
        var draft = ImportedWatchDraft(url: url)
        draft.name = job["name"]?.text
        if case .mapping(let headers)? = job["headers"] {
            for (name, value) in headers {
                guard let value = value.text else { return reject("headers.\(name): must be a string") }
                draft.headers.append((name, value))
            }
        }
        switch selector(of: job["filter"]) {
        case .success(let selector): draft.selector = selector
        case .failure(let problem): return reject(problem.message)
        }
        return WatchImportEntry(index: index, url: url, content: .watch(json: draft.json))
    }

    /// The one selector among the filters, or nil; a second selector, or a
    /// filter that rewrites the text, has no Tidings form.
    private static func selector(of filter: YAMLNode?) -> Result<ImportedWatchDraft.Selector?, WatchImportError> {
        var steps: [(kind: String, argument: YAMLNode)] = []
        switch filter {
        case nil, .null?:
            break
        case .scalar(let text)?:
            // The old form: "css:.price,html2text".
            for step in text.split(separator: ",") {
                let parts = step.split(separator: ":", maxSplits: 1)
                let kind = parts.first?.trimmingSpaces ?? ""
                steps.append((kind, parts.count > 1 ? .scalar(String(parts[1].trimmingSpaces)) : .null))
            }
        case .sequence(let items)?:
            for item in items {
                switch item {
                case .scalar(let text):
                    let parts = text.split(separator: ":", maxSplits: 1)
                    steps.append((parts.first?.trimmingSpaces ?? "", parts.count > 1 ? .scalar(String(parts[1].trimmingSpaces)) : .null))
                case .mapping(let pairs) where pairs.count == 1:
                    steps.append((pairs[0].key, pairs[0].value))
                default:
                    return .failure(WatchImportError("filter: each step must be a name or a one-key mapping"))
                }
            }
        default:
            return .failure(WatchImportError("filter: must be a list of filters or a string"))
        }
        var found: ImportedWatchDraft.Selector?
        for (kind, argument) in steps {
            let selector: ImportedWatchDraft.Selector
            switch kind {
            case "css":
                guard let text = argument.text ?? argument["selector"]?.text else {
                    return .failure(WatchImportError("filter: css needs a selector"))
                }
                selector = .css(text)
            case "xpath":
                guard let text = argument.text ?? argument["path"]?.text else {
                    return .failure(WatchImportError("filter: xpath needs a path"))
                }
                selector = .xpath(text)
            case let other where reformattingFilters.contains(other):
                continue
            default:
                return .failure(WatchImportError("filter: \(kind) has no Tidings counterpart"))
            }
            if found != nil { return .failure(WatchImportError("filter: applies several selectors in turn; a Tidings watch takes one")) }
            found = selector
        }
        return .success(found)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
