import TidingsExtraction

/// An OPML subscription list: every `outline` with an `xmlUrl` is a watch
/// of that feed, named by its `text` attribute.
///
/// Read with libxml2's HTML parser, which is enough for attributes of
/// elements: it never loads a DTD, never expands entities a document
/// declares (so "billion laughs" stays a few bytes), and holds the same
/// node and time limits as extraction does.
enum OPMLSubscriptions {
    private static var limits: ExtractionLimits {
        var limits = ExtractionLimits.default
        limits.documentNodeLimit = WatchImportLimits.maximumEntries * 20
        limits.timeLimit = .seconds(5)
        return limits
    }

    static func entries(from body: [UInt8]) throws(WatchImportError) -> [WatchImportEntry] {
        let urls: [String]
        let names: [String]
        do {
            let document = try HTMLDocument(bytes: body, encoding: nil, limits: limits)
            guard try document.xpath("count(//opml)") != ["0"] else { throw WatchImportError("the file has no opml element") }
            urls = try document.xpath("//outline[@xmlurl]/@xmlurl")
            names = urls.count > WatchImportLimits.maximumEntries ? [] : try document.xpath("//outline[@xmlurl]/@text")
        } catch let error as WatchImportError {
            throw error
        } catch {
            throw WatchImportError("the OPML file could not be read within the import's limits")
        }
        guard urls.count <= WatchImportLimits.maximumEntries else {
            throw WatchImportError("the file has \(urls.count) subscriptions; an import takes at most \(WatchImportLimits.maximumEntries)")
        }
        // Each outline with an xmlUrl gave one of each only when every one has a text.
        let named = names.count == urls.count
        return urls.enumerated().map { index, url in
            var draft = ImportedWatchDraft(url: url)
            if named, !names[index].isEmpty { draft.name = names[index] }
            return WatchImportEntry(index: index, url: url, content: .watch(json: draft.json))
        }
    }
}
