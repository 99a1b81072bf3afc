/// A configuration value that cannot be used; start-up stops with this message.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The environment variable at fault.
    package let variable: String
    package let message: String

    package var description: String {
        "\(variable): \(message)"
    }
}
