/// A compressed input that cannot be read within its bounds. The message
/// names what is wrong and never quotes the input.
package struct CompressionError: Error, Sendable, Equatable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}
