@testable import TidingsDomain

/// changedetection.io's url-watches.json, or a backup zip holding it
/// (the zip reader and raw inflate): any bytes give entries or a
/// WatchImportError; intervals, filters and headers of any type map or are
/// rejected with a reason.
enum ImportChangedetectionTarget {
    static func run(_ input: FuzzInput) {
        ImportEntriesCheck.verify(Result { () throws(WatchImportError) in try ChangedetectionBackup.entries(from: input.bytes) }, input)
    }
}
