/// What a caller learns when its job ran past its time limit and the pool
/// stopped waiting for it: the job runs on in the background, at the
/// lowest CPU priority, and its result is dropped.
package struct ThreadPoolAbandonment: Sendable, Equatable {
    /// Abandoned jobs still running, this one included.
    package var abandonedThreads: Int
    /// Whether a new thread took the abandoned one's place at once; false
    /// when the pool was at its limit of abandoned threads, so it serves
    /// with one thread fewer until an abandoned job ends.
    package var isReplaced: Bool
    /// The errno of lowering the thread's priority, nil when it was lowered.
    package var priorityError: Int32?

    package init(abandonedThreads: Int, isReplaced: Bool, priorityError: Int32? = nil) {
        self.abandonedThreads = abandonedThreads
        self.isReplaced = isReplaced
        self.priorityError = priorityError
    }
}
