/// The answer to `ThreadPool.run(timeLimit:)`: the job's result, or word
/// that it ran past its time limit and was abandoned.
package enum ThreadPoolOutcome<Result: Sendable>: Sendable {
    case finished(Result)
    case abandoned(ThreadPoolAbandonment)
}

extension ThreadPoolOutcome: Equatable where Result: Equatable {}
