import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TidingsClient {
    /// The user's events as they happen (`GET /v1/events`, Server-Sent
    /// Events), for as long as the iterating task runs.
    ///
    /// When the connection drops (network, server restart, a reader too far
    /// behind) the stream reconnects by itself with `Last-Event-ID`, so
    /// nothing is lost or repeated; it waits the server's `retry:` first,
    /// doubling after each failed attempt up to a minute, with jitter.
    /// Cancelling the iterating task (or leaving the loop) ends it.
    ///
    /// The stream finishes with an error only for answers that will not
    /// change by waiting: a revoked key (401), a malformed request (400),
    /// or an answer that is not an event stream.
    ///
    /// - Parameters:
    ///   - types: Only these event types; all when empty.
    ///   - after: A position to resume after (an event's ``TidingsEvent/id``
    ///     or a sync cursor); from now when nil.
    public func events(types: [TidingsEventType] = [], after: String? = nil) -> AsyncThrowingStream<TidingsEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<TidingsEvent, any Error>.makeStream()
        let reader = Task { [self] in
            await readEvents(types: types, after: after, into: continuation)
        }
        continuation.onTermination = { _ in reader.cancel() }
        return stream
    }

    private func readEvents(
        types: [TidingsEventType], after: String?, into continuation: AsyncThrowingStream<TidingsEvent, any Error>.Continuation
    ) async {
        var lastEventID = after
        var backoff = ReconnectBackoff()
        var random = SystemRandomNumberGenerator()
        let query = types.isEmpty ? [] : [URLQueryItem(name: "types", value: types.map(\.rawValue).joined(separator: ","))]
        while !Task.isCancelled {
            var waitAtLeast = Duration.zero
            do {
                var request = request("GET", "/v1/events", query: query)
                request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
                // An empty id (a bare `id:` line) means no position, as in EventSource.
                if let lastEventID, !lastEventID.isEmpty { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
                // No total deadline: the interval is between bytes, and the
                // server's heartbeat comes every 15 s.
                request.timeoutInterval = 45
                var parser = ServerSentEventParser(lastEventID: lastEventID)
                defer { lastEventID = parser.lastEventID }
                var opened = false
                var errorBody = Data()
                var status = 0
                var head: HTTPURLResponse?
                for try await part in transport.parts(of: request, limit: nil) {
                    switch part {
                    case .head(let response):
                        head = response
                        status = response.statusCode
                        if status == 200, response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/event-stream") != true {
                            throw TidingsError.invalidResponse(status: status, reason: "not text/event-stream")
                        }
                    case .body(let chunk) where status == 200:
                        for message in try parser.feed(chunk) {
                            if !opened {
                                opened = true
                                backoff.connected()
                            }
                            continuation.yield(
                                TidingsEvent(id: message.id, type: TidingsEventType(rawValue: message.event), json: Data(message.data.utf8))
                            )
                        }
                        if let retry = parser.retryMilliseconds { backoff.base = .milliseconds(retry) }
                        if !opened, parser.retryMilliseconds != nil {
                            opened = true
                            backoff.connected()
                        }
                    case .body(let chunk):
                        if errorBody.count < 64 << 10 { errorBody.append(chunk) }
                    }
                }
                if let head, status != 200 {
                    let problem = ProblemDecoding.problem(status: status, response: head, body: errorBody)
                    let error = TidingsError.problem(problem)
                    guard error.isTransient else { throw error }
                    waitAtLeast = problem.retryAfter ?? .zero
                }
                // A clean end (the server shut down, or cut a slow reader): reconnect.
            } catch is ServerSentEventParser.MessageTooLarge {
                continuation.finish(throwing: TidingsError.invalidResponse(status: 200, reason: "an event larger than 1 MiB"))
                return
            } catch let error as TidingsError where !error.isTransient {
                continuation.finish(throwing: error)
                return
            } catch {
                // Network errors and cancellation: the loop's condition decides.
            }
            if Task.isCancelled { break }
            let delay = max(backoff.nextDelay(using: &random), waitAtLeast)
            do { try await Task.sleep(for: delay) } catch { break }
        }
        continuation.finish()
    }
}
