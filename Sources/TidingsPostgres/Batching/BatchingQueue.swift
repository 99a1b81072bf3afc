import TidingsSynchronization

/// Group commit for blocking callers: what concurrent threads submit while
/// a batch is running becomes the next batch, run by one of them (the
/// leader) as one statement, while the others wait for their own result.
///
/// A caller that finds nothing running leads at once with a batch of one,
/// so an idle server adds no latency; under load the batches grow by
/// themselves to what arrived during the previous one (up to
/// `maxBatchSize`), and one round trip and one durable commit serve them
/// all. Batches run one at a time, in arrival order.
///
/// `runBatch` gets the inputs in arrival order and returns one output per
/// input in the same order. If it throws a server error (one statement
/// failed, and with it the whole batch, which changed nothing), every input
/// is retried alone through `runOne`, so each caller gets its own outcome
/// and one bad input cannot fail the others. Other errors (the connection or
/// the pool) reach every caller of the batch as they are.
package final class BatchingQueue<Input: Sendable, Output: Sendable>: Sendable {
    package typealias RunBatch = @Sendable ([Input]) throws -> [Output]
    package typealias RunOne = @Sendable (Input) throws -> Output

    package let maxBatchSize: Int
    private let runBatch: RunBatch
    private let runOne: RunOne
    /// Taken twice by every request it batches: see AdaptiveMutex.
    private let state = AdaptiveMutex(State())

    private struct State {
        var queue: [Submission] = []
        var leading = false
    }

    private struct Submission: Sendable {
        let input: Input
        /// Where the waiting caller's outcome arrives.
        let slot: Mailbox<Outcome>
    }

    private enum Outcome: Sendable {
        case finished(Result<Output, any Error>)
        /// The previous leader is done and this caller runs the next batch.
        case lead
    }

    package init(maxBatchSize: Int = 64, runBatch: @escaping RunBatch, runOne: @escaping RunOne) {
        precondition(maxBatchSize >= 1, "maxBatchSize must be at least 1")
        self.maxBatchSize = maxBatchSize
        self.runBatch = runBatch
        self.runOne = runOne
    }

    /// Submissions waiting for a batch, beside the running one: what a test
    /// awaits before it lets a batch end.
    package var waitingCount: Int {
        state.withLock { $0.queue.count }
    }

    /// Runs `input` in the next batch and returns its own output.
    package func submit(_ input: Input) throws -> Output {
        let slot = Mailbox<Outcome>()
        let leads = state.withLock { state in
            state.queue.append(Submission(input: input, slot: slot))
            guard !state.leading else { return false }
            state.leading = true
            return true
        }
        if !leads, case .finished(let result) = slot.wait() {
            return try result.get()
        }
        return try lead(slot)
    }

    /// Runs the oldest submissions (this caller's among them: the queue is
    /// served in order and a new leader is always its head), hands the
    /// others their outcomes and the lead to the next waiting caller.
    private func lead(_ own: Mailbox<Outcome>) throws -> Output {
        let batch = state.withLock { state in
            let count = min(state.queue.count, maxBatchSize)
            defer { state.queue.removeFirst(count) }
            return Array(state.queue.prefix(count))
        }
        // A closure, not a key path: a key path in generic code is instantiated
        // at run time on every call, which showed in the profile.
        let results = run(batch.map { $0.input })
        var ownResult: Result<Output, any Error>?
        for (submission, result) in zip(batch, results) {
            if submission.slot === own {
                ownResult = result
            } else {
                submission.slot.deliver(.finished(result))
            }
        }
        let next = state.withLock { state -> Mailbox<Outcome>? in
            guard let head = state.queue.first else {
                state.leading = false
                return nil
            }
            return head.slot
        }
        next?.deliver(.lead)
        guard let ownResult else { preconditionFailure("a batch leader was not part of its own batch") }
        return try ownResult.get()
    }

    private func run(_ inputs: [Input]) -> [Result<Output, any Error>] {
        if inputs.count == 1 {
            return [Result { try runOne(inputs[0]) }]
        }
        do {
            let outputs = try runBatch(inputs)
            precondition(outputs.count == inputs.count, "a batch returned \(outputs.count) results for \(inputs.count) inputs")
            return outputs.map { .success($0) }
        } catch let error as PostgresError where error.code == .server {
            return inputs.map { input in Result { try runOne(input) } }
        } catch {
            return inputs.map { _ in .failure(error) }
        }
    }
}
