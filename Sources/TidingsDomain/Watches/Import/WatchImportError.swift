/// A file that cannot be read at all (not one of its entries): the
/// message names what is wrong and never quotes the file.
package struct WatchImportError: Error, Sendable, Equatable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}
