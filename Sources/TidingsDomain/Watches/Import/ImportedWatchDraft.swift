import TidingsJSON

/// What another tool's entry says about a watch, before validation: its
/// JSON is an entry of Tidings' export format, so every format is checked
/// by the one decoder of the API (`ImportedWatchBody`).
struct ImportedWatchDraft {
    enum Selector {
        case css(String)
        case xpath(String)
    }

    var url: String
    var name: String?
    var intervalSeconds: Int?
    var selector: Selector?
    var ignorePatterns: [String] = []
    var headers: [(name: String, value: String)] = []
    var paused = false

    init(url: String) {
        self.url = url
    }

    var json: String {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("watch")
        writer.beginObject()
        writer.key("url")
        writer.value(url)
        if let name {
            writer.key("name")
            writer.value(String(name.prefix(WatchSettings.maximumNameLength)))
        }
        if let intervalSeconds {
            writer.key("interval_seconds")
            writer.value(intervalSeconds)
        }
        if let selector {
            writer.key("extract")
            writer.beginObject()
            switch selector {
            case .css(let css):
                writer.key("css")
                writer.value(css)
            case .xpath(let xpath):
                writer.key("xpath")
                writer.value(xpath)
            }
            if !ignorePatterns.isEmpty {
                writer.key("ignore")
                writer.value(ignorePatterns)
            }
            writer.endObject()
        }
        if !headers.isEmpty {
            writer.key("headers")
            writer.beginObject()
            for (name, value) in headers {
                writer.key(name)
                writer.value(value)
            }
            writer.endObject()
        }
        writer.endObject()
        writer.key("paused")
        writer.value(paused)
        writer.endObject()
        return writer.text
    }
}
