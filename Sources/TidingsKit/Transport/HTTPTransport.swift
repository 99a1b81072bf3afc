import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every request of a client goes through one `URLSession` whose delegate
/// hands each response over as it arrives ( `URLSession.bytes(for:)` does
/// not exist in FoundationNetworking on Linux, so the delegate is the one
/// way that works everywhere). A JSON answer is capped while it arrives,
/// never after it was buffered whole; an event stream is read chunk by
/// chunk for as long as it lasts.
///
/// `@unchecked Sendable`: `session` is written once in `init`; the
/// per-task state lives in `tasks`, behind its lock.
final class HTTPTransport: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private var session: URLSession!
    private let tasks = Locked<[Int: TaskState]>([:])

    private struct TaskState {
        let continuation: AsyncThrowingStream<ResponsePart, any Error>.Continuation
        /// Most body bytes accepted; nil for a stream, which its parser caps.
        let limit: Int?
        var received = 0
        var sentHead = false
    }

    init(configuration: URLSessionConfiguration) {
        super.init()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Breaks the session's strong reference to its delegate; in-flight
    /// tasks finish first.
    func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// Starts `request`; the parts arrive in order. Ending the iteration
    /// (or cancelling the task iterating) cancels the request.
    func parts(of request: URLRequest, limit: Int?) -> AsyncThrowingStream<ResponsePart, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ResponsePart, any Error>.makeStream()
        let task = session.dataTask(with: request)
        tasks.withLock { $0[task.taskIdentifier] = TaskState(continuation: continuation, limit: limit) }
        continuation.onTermination = { [weak task] _ in task?.cancel() }
        task.resume()
        return stream
    }

    /// The whole answer to `request`, at most `limit` bytes of body.
    func send(_ request: URLRequest, limit: Int) async throws -> (HTTPURLResponse, Data) {
        var head: HTTPURLResponse?
        var body = Data()
        do {
            for try await part in parts(of: request, limit: limit) {
                switch part {
                case .head(let response): head = response
                case .body(let chunk): body.append(chunk)
                }
            }
        } catch let error as TidingsError {
            throw error
        } catch {
            try Task.checkCancellation()
            throw TidingsError.transport(error)
        }
        guard let head else { throw TidingsError.invalidResponse(status: 0, reason: "no HTTP response") }
        return (head, body)
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let action: (continuation: AsyncThrowingStream<ResponsePart, any Error>.Continuation, parts: [ResponsePart], overLimit: Int?)? =
            tasks.withLock { tasks in
                guard var state = tasks[dataTask.taskIdentifier] else { return nil }
                var parts: [ResponsePart] = []
                if !state.sentHead, let head = dataTask.response as? HTTPURLResponse {
                    state.sentHead = true
                    parts.append(.head(head))
                    // A declared length past the cap is refused before its body.
                    if let limit = state.limit, head.expectedContentLength > Int64(limit) {
                        tasks[dataTask.taskIdentifier] = nil
                        return (state.continuation, parts, limit)
                    }
                }
                state.received += data.count
                if let limit = state.limit, state.received > limit {
                    tasks[dataTask.taskIdentifier] = nil
                    return (state.continuation, parts, limit)
                }
                parts.append(.body(data))
                tasks[dataTask.taskIdentifier] = state
                return (state.continuation, parts, nil)
            }
        guard let action else { return }
        for part in action.parts { action.continuation.yield(part) }
        if let limit = action.overLimit {
            dataTask.cancel()
            action.continuation.finish(throwing: TidingsError.responseTooLarge(limit: limit))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            state.continuation.finish(throwing: error)
            return
        }
        if !state.sentHead, let head = task.response as? HTTPURLResponse {
            state.continuation.yield(.head(head))
        }
        state.continuation.finish()
    }
}
