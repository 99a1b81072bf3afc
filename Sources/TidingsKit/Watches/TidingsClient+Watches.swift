public import Foundation

extension TidingsClient {
    /// Watches a URL.
    ///
    /// - Parameter draft: The URL and, optionally, how to check it.
    /// - Returns: The new watch, `pending` until its first check.
    public func createWatch(_ draft: WatchDraft) async throws -> Watch {
        try await decoded(Watch.self, "POST", "/v1/watches", sending: draft)
    }

    /// The user's watches, oldest first, fetched page by page as they are
    /// iterated.
    ///
    /// - Parameters:
    ///   - paused: Only paused (`true`) or only active (`false`) watches; all when nil.
    ///   - state: Only watches in this state; all when nil.
    ///   - pageSize: Watches per request, 1 to 200.
    public func watches(paused: Bool? = nil, state: WatchState? = nil, pageSize: Int = 100) -> WatchList {
        var filters: [URLQueryItem] = []
        if let paused { filters.append(URLQueryItem(name: "paused", value: paused ? "true" : "false")) }
        if let state { filters.append(URLQueryItem(name: "state", value: state.rawValue)) }
        return WatchList(client: self, filters: filters, pageSize: min(max(pageSize, 1), 200))
    }

    /// One watch.
    ///
    /// - Parameter id: The watch's id.
    public func watch(id: String) async throws -> Watch {
        try await decoded(Watch.self, for: request("GET", "/v1/watches/\(Self.pathSegment(id))"))
    }

    /// Changes a watch.
    ///
    /// - Parameters:
    ///   - id: The watch's id.
    ///   - update: What changes.
    /// - Returns: The watch afterwards.
    public func updateWatch(id: String, _ update: WatchUpdate) async throws -> Watch {
        try await decoded(Watch.self, "PATCH", "/v1/watches/\(Self.pathSegment(id))", sending: update)
    }

    /// Pauses a watch's checks; it keeps its state and unread changes.
    ///
    /// - Parameter id: The watch's id.
    @discardableResult
    public func pauseWatch(id: String) async throws -> Watch {
        try await decoded(Watch.self, for: request("POST", "/v1/watches/\(Self.pathSegment(id))/pause"))
    }

    /// Resumes a paused watch's checks.
    ///
    /// - Parameter id: The watch's id.
    @discardableResult
    public func resumeWatch(id: String) async throws -> Watch {
        try await decoded(Watch.self, for: request("POST", "/v1/watches/\(Self.pathSegment(id))/resume"))
    }

    /// Stops watching.
    ///
    /// - Parameter id: The watch's id.
    public func deleteWatch(id: String) async throws {
        _ = try await data(for: request("DELETE", "/v1/watches/\(Self.pathSegment(id))"))
    }

    /// Checks a watch now instead of at its next interval; rate limited by
    /// the server (a 429 problem with ``TidingsProblem/retryAfter``).
    ///
    /// - Parameter id: The watch's id.
    /// - Returns: What the check found and the watch afterwards.
    public func checkWatch(id: String) async throws -> CheckOutcome {
        try await decoded(CheckOutcome.self, for: request("POST", "/v1/watches/\(Self.pathSegment(id))/check"))
    }
}
