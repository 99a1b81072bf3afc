import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsPostgres
import TidingsTestSupport

/// Changes for the unread-count tests are written with `record_changes`, the
/// database function the poller's eventful write calls, so the counting
/// under test is the production path; only the fetching and the judging
/// (here the same rule in SQL) are left out.
extension APITestServer {
    /// A user with `count` watches on distinct public URLs, each with a
    /// baseline hash already recorded (so the next hash is a change).
    func userWithWatches(_ count: Int) async throws -> (userID: String, key: String, watchIDs: [String]) {
        let (userID, key) = try await createUser()
        var watchIDs: [String] = []
        for index in 0..<count {
            let watch = try await createWatch(token: key, ["url": "https://93.184.215.14/page-\(index)"])
            let id = try #require(watch["id"] as? String)
            try recordChange(watchID: id, text: "baseline")
            watchIDs.append(id)
        }
        return (userID, key, watchIDs)
    }

    /// Records new content for a watch as the poller's eventful write does
    /// (the watch locked first, the transaction run again should it lose a
    /// deadlock); returns the change id, nil for a baseline or unchanged
    /// content.
    @discardableResult
    func recordChange(watchID: String, text: String) throws -> String? {
        let hash = SHA256.hash(text).hex
        return try application.database.withRetryingTransaction { connection in
            try connection.execute("SELECT 1 FROM watches WHERE id = \(watchID)::uuid FOR UPDATE")
            return try connection.query(
                """
                SELECT (
                    SELECT change_id FROM record_changes(
                        ARRAY[\(watchID)::uuid],
                        ARRAY[(SELECT CASE WHEN w.content_hash = \(hash) THEN 'unchanged'
                                           WHEN w.content_hash IS NULL OR w.quiet_rebaseline THEN 'baseline' ELSE 'changed' END
                               FROM watches w WHERE w.id = \(watchID)::uuid)],
                        ARRAY[\(hash)::text], ARRAY[\(text)::text], ARRAY[false],
                        ARRAY[\("-old\n+" + text)::text], ARRAY[200], ARRAY[\(Int64(text.utf8.count))::bigint])
                )::text AS id
                """)[0].decode("id", as: String?.self)
        }
    }

    /// Fails the test unless every watch's unread count equals its unread
    /// changes and every badge equals the sum over the user's watches.
    func expectCountsConsistent(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let watchMismatches = try application.database.query(
            """
            SELECT count(*) AS n FROM watches w
            WHERE w.unread_count <> (SELECT count(*) FROM changes c WHERE c.watch_id = w.id AND c.read_at IS NULL)
            """)[0].decode("n", as: Int.self)
        let badgeMismatches = try application.database.query(
            """
            SELECT count(*) AS n FROM badges b
            WHERE b.count <> (SELECT coalesce(sum(unread_count), 0) FROM watches w WHERE w.user_id = b.user_id)
            """)[0].decode("n", as: Int.self)
        #expect(watchMismatches == 0, "watches whose unread_count disagrees with their changes", sourceLocation: sourceLocation)
        #expect(badgeMismatches == 0, "badges that disagree with the sum of their watches", sourceLocation: sourceLocation)
    }

    /// The `data` of the user's badge.updated events, oldest first.
    func badgeEvents(userID: String) throws -> [[String: Any]] {
        try application.database.query(
            """
            SELECT data::text AS data FROM events
            WHERE user_id = \(userID)::uuid AND type = 'badge.updated'
            ORDER BY (data->>'sequence')::bigint
            """
        ).map { row in
            let text = try row.decode("data", as: String.self)
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
    }

    func badge(key: String) async throws -> (count: Int, sequence: Int) {
        let body = try await send("GET", "/v1/badge", token: key).object()
        return (try #require(body["count"] as? Int), try #require(body["sequence"] as? Int))
    }
}
