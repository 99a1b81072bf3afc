/// A configuration value that cannot be used; start-up stops with this message.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The environment variable at fault.
    package let variable: String
    package let message: String

    package var description: String {
        "\(variable): \(message)"
    }
}

extension ConfigurationError {
    /// A deployment with its own database must bring the key that seals
    /// the secrets in it: one made up at start would not open them after a
    /// restart, nor on another replica.
    static let missingSecretKey = ConfigurationError(
        variable: "TIDINGS_SECRET_KEY",
        message: "must be set when TIDINGS_DATABASE_URL is set: 64 hexadecimal characters from `openssl rand -hex 32`, "
            + "the same on every replica and kept safe (it encrypts webhook secrets and watch headers; see README, \"Secrets at rest\")"
    )
}
