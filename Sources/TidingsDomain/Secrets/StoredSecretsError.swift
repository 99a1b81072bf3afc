package import TidingsCrypto

/// Why stored secrets cannot be used with the configured keys.
package enum StoredSecretsError: Error, Sendable, CustomStringConvertible {
    /// A key kept in `sealed_keys` does not open: the configured keys are
    /// not the ones the database was sealed with.
    case unusableKey(purpose: String, reason: SecretError)
    /// Rows a rotation could not take: others kept them locked, or kept
    /// writing values under another key.
    case notFinished(rows: Int)
    /// A target's header column is not a JSON object of strings (only a
    /// hand-edited row can be).
    case unreadableHeaders(StoredSecrets.HeaderColumn)

    package var description: String {
        switch self {
        case .unusableKey(let purpose, let reason):
            "the \(purpose) key stored in the database cannot be opened with the configured keys (\(reason)); "
                + "TIDINGS_SECRET_KEY, or one of TIDINGS_PREVIOUS_SECRET_KEYS, must be the key this database was encrypted with"
        case .notFinished(let rows):
            "\(rows) rows were still not under the current key at the end (locked by other transactions, "
                + "or written by a replica that does not have the current key yet); restart every replica with it and run the command again"
        case .unreadableHeaders(let column):
            "\(column.rawValue) is not a JSON object of strings"
        }
    }
}
