import Foundation

extension TidingsClient {
    private struct ReadWatch: Encodable {
        let upToChangeID: String?

        enum CodingKeys: String, CodingKey {
            case upToChangeID = "up_to_change_id"
        }
    }

    /// The user's unread total, the same on every device.
    public func badge() async throws -> Badge {
        try await decoded(Badge.self, for: request("GET", "/v1/badge"))
    }

    /// Marks a watch's changes read.
    ///
    /// - Parameters:
    ///   - watchID: The watch's id.
    ///   - changeID: Read only up to and including this change, so that a
    ///     change detected since the user looked stays unread; every
    ///     change when nil.
    /// - Returns: The watch's remaining unread count and the new badge.
    @discardableResult
    public func markRead(watchID: String, upTo changeID: String? = nil) async throws -> ReadReceipt {
        try await decoded(
            ReadReceipt.self, "POST", "/v1/watches/\(Self.pathSegment(watchID))/read", sending: ReadWatch(upToChangeID: changeID))
    }

    /// Marks every change of every watch read.
    ///
    /// - Returns: The badge afterwards (count 0).
    @discardableResult
    public func readAll() async throws -> Badge {
        try await decoded(Badge.self, for: request("POST", "/v1/badge/read-all"))
    }
}
