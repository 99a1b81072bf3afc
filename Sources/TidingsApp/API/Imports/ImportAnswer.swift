import TidingsDomain
import TidingsHTTPServer
import TidingsJSON

/// The answer of `POST /v1/imports`; the dashboard's import page reads it.
struct ImportAnswer {
    struct Rejected {
        let index: Int
        let url: String?
        let reason: String
    }

    let dryRun: Bool
    let format: WatchImportFormat
    let created: [Watch]
    let existing: Int
    let rejected: [Rejected]
}

extension ImportAnswer: JSONWritable {
    /// Keys in sorted order; a rejected entry's `url` is always present,
    /// null when the entry gave none.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("created")
        writer.beginArray()
        for watch in created { WatchRepresentation(watch).write(to: &writer) }
        writer.endArray()
        writer.key("dry_run")
        writer.value(dryRun)
        writer.key("existing")
        writer.value(existing)
        writer.key("format")
        writer.value(format.rawValue)
        writer.key("rejected")
        writer.beginArray()
        for entry in rejected {
            writer.beginObject()
            writer.key("index")
            writer.value(entry.index)
            writer.key("reason")
            writer.value(entry.reason)
            writer.key("url")
            writer.value(entry.url)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
