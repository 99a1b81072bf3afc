/// What an import did, or (a dry run) would do.
package struct WatchImportResult: Sendable {
    /// The watches created, in the order of the entries that made them. In
    /// a dry run they were created and rolled back: their ids do not exist.
    package let created: [Watch]
    /// Entries the user already had a watch for (same target and rule),
    /// including repeats within the file.
    package let existing: Int
}
