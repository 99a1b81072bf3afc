/// One entry of an imported file, in Tidings' own terms: the JSON of an
/// entry of Tidings' export format (`{"watch": <POST /v1/watches body>,
/// "paused": ...}`), which the API decodes and validates as it does its
/// own, or the reason the entry has no such form.
package struct WatchImportEntry: Sendable, Equatable {
    package enum Content: Sendable, Equatable {
        case watch(json: String)
        case rejected(reason: String)
    }

    /// Its position among the file's entries, from 0.
    package let index: Int
    /// The URL the file gives, when it gives one, to name the entry.
    package let url: String?
    package let content: Content

    package init(index: Int, url: String?, content: Content) {
        self.index = index
        self.url = url
        self.content = content
    }
}
