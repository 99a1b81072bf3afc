public import Foundation

/// Catches the app up with the sync feed (`GET /v1/changes`): one call,
/// ``sync()``, returns every change since the last one and the badge.
///
/// - The position is kept in a ``CursorStore`` and saved only once a sync
///   has read the feed to its end, so a sync that fails part way (network,
///   app suspended) leaves the cursor where it was: the next one returns
///   the same changes again, none lost, and once it succeeds, none again.
/// - Calls made while a sync is running wait for it and get its result: one
///   request at a time, however many places (a push, a background refresh,
///   the app becoming active) ask at once.
/// - A cursor the server can no longer resume (410, older than its
///   retention) is dropped and the feed read from the start; the result
///   says ``SyncResult/resynced``.
public actor SyncEngine {
    /// The client the engine syncs through.
    public let client: TidingsClient
    /// Where the cursor is kept.
    public let store: any CursorStore
    /// Changes asked for per request (the server allows 1 to 200).
    public let pageSize: Int

    private var running: Task<SyncResult, any Error>?

    /// Creates an engine.
    ///
    /// - Parameters:
    ///   - client: The client to sync through.
    ///   - store: Where the cursor is kept; one store per user and server.
    ///   - pageSize: Changes per request, 1 to 200.
    public init(client: TidingsClient, store: any CursorStore, pageSize: Int = 200) {
        self.client = client
        self.store = store
        self.pageSize = min(max(pageSize, 1), 200)
    }

    /// Fetches every change since the last sync, saves the new cursor and
    /// returns the changes with the badge. Joins a sync already running
    /// instead of starting another.
    ///
    /// Cancelling the caller does not cancel a sync others may be waiting
    /// for; the caller gets `CancellationError` only if the sync fails.
    public func sync() async throws -> SyncResult {
        if let running { return try await running.value }
        // The task runs on this actor and clears `running` before it
        // returns, so no later call can join a sync that has finished
        // (and get changes it returned already).
        let task = Task {
            defer { running = nil }
            return try await readFeed()
        }
        running = task
        return try await task.value
    }

    /// The saved cursor, or nil before the first sync.
    public func savedCursor() async throws -> String? {
        try await store.loadCursor()
    }

    /// Reads the feed from the saved cursor to its end, then saves the end.
    private func readFeed() async throws -> SyncResult {
        var cursor = try await store.loadCursor()
        var resynced = false
        var changes: [FeedChange] = []
        while true {
            var query = [URLQueryItem(name: "limit", value: String(pageSize))]
            if let cursor { query.append(URLQueryItem(name: "after", value: cursor)) }
            let page: ChangeFeedPage
            do {
                page = try await client.decoded(ChangeFeedPage.self, for: client.request("GET", "/v1/changes", query: query))
            } catch let error as TidingsError where error.problem?.status == 410 && !resynced {
                // The cursor is past retention or unknown here: from the start, once.
                cursor = nil
                changes = []
                resynced = true
                continue
            }
            changes += page.data
            cursor = page.nextCursor
            // A full page means more may follow; a short one is the end.
            if page.data.count < pageSize {
                try await store.saveCursor(page.nextCursor)
                return SyncResult(changes: changes, badge: page.badge, resynced: resynced, cursor: page.nextCursor)
            }
        }
    }
}
