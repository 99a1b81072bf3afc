/// A configuration value that cannot be used; start-up stops with this message.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The environment variable at fault.
    public let variable: String
    public let message: String

    public var description: String {
        "\(variable): \(message)"
    }
}
