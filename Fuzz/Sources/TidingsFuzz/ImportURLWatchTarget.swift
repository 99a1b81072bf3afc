@testable import TidingsDomain

/// urlwatch's urls.yaml through the YAML subset parser and the job mapping:
/// any bytes give entries or a WatchImportError, in time linear in the input.
enum ImportURLWatchTarget {
    static func run(_ input: FuzzInput) {
        ImportEntriesCheck.verify(Result { () throws(WatchImportError) in try URLWatchJobs.entries(from: input.bytes) }, input)
    }
}
