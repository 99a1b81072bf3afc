/// Reads an imported file into entries in Tidings' own terms, whatever
/// its format (decision 0055). Tidings' own format is read by the API,
/// which decodes its entries directly.
package enum WatchImportReader {
    /// The entries of a file in `format` other than `.tidings`.
    package static func entries(of body: [UInt8], format: WatchImportFormat) throws(WatchImportError) -> [WatchImportEntry] {
        switch format {
        case .changedetection: try ChangedetectionBackup.entries(from: body)
        case .urlwatch: try URLWatchJobs.entries(from: body)
        case .opml: try OPMLSubscriptions.entries(from: body)
        case .tidings: throw WatchImportError("Tidings' own format is decoded by the API")
        }
    }
}
