/// Bounds every import parser keeps, whatever the file (docs/LIMITS.md).
/// The body itself is bounded by `TIDINGS_MAX_IMPORT_SIZE` before any
/// parser sees it.
package enum WatchImportLimits {
    /// Entries one import may hold, mapped or not.
    package static let maximumEntries = 10_000
    /// Nesting of YAML blocks and JSON values the parsers follow.
    package static let maximumDepth = 32
    /// Lines of one YAML file.
    package static let maximumLines = 200_000
}
