@testable import TidingsDomain

/// OPML subscription lists through libxml2's HTML parser: any bytes give
/// entries or a WatchImportError, and the format sniffer never traps.
enum ImportOPMLTarget {
    static func run(_ input: FuzzInput) {
        _ = WatchImportFormat.sniff(input.bytes, contentType: nil)
        ImportEntriesCheck.verify(Result { () throws(WatchImportError) in try OPMLSubscriptions.entries(from: input.bytes) }, input)
    }
}
