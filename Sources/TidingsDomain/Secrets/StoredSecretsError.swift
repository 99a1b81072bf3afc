import TidingsCrypto

/// Why stored secrets cannot be used with the configured keys.
package enum StoredSecretsError: Error, Sendable, CustomStringConvertible {
    /// A key kept in `sealed_keys` does not open: the configured keys are
    /// not the ones the database was sealed with.
    case unusableKey(purpose: String, reason: SecretError)
    /// Rows a rotation could not take because others kept them locked.
    case stillLocked(rows: Int)

    package var description: String {
        switch self {
        case .unusableKey(let purpose, let reason):
            "the \(purpose) key stored in the database cannot be opened with the configured keys (\(reason)); "
                + "TIDINGS_SECRET_KEY, or one of TIDINGS_PREVIOUS_SECRET_KEYS, must be the key this database was encrypted with"
        case .stillLocked(let rows):
            "\(rows) rows stayed locked by other transactions; run the command again"
        }
    }
}
