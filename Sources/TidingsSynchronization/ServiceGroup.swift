/// The services of one process: started in order, stopped in reverse
/// under one deadline.
///
/// A service that fails to start stops every one handed over before it
/// (in reverse), itself and the rest of its call too (a service holds
/// threads and pools from its `init`; `stop` is safe before `start`), and
/// its error is rethrown, so a failed start leaves nothing running. Stopping runs each service's `stop` on a thread of its own and
/// waits for it until `overrun` past the deadline (or past the start of its
/// turn, when that comes later): a service that has not returned by then is
/// left to finish on its own and the rest are still stopped, so one that
/// hangs holds the process past the deadline by one overrun, no more.
package final class ServiceGroup: Sendable {
    /// A service and the name reports give it.
    package struct Member: Sendable {
        package let name: String
        package let service: any Service

        package init(_ name: String, _ service: any Service) {
            self.name = name
            self.service = service
        }
    }

    /// How long past the deadline a service may take to return: it spends
    /// the time until the deadline on work in flight, then needs a moment
    /// to close what it holds.
    package let overrun: Duration
    private let stopTimeout: Duration
    private let started = AdaptiveMutex<[Member]>([])

    /// `stopTimeout` is the deadline a failed start gives the services it
    /// stops.
    package init(stopTimeout: Duration, overrun: Duration = .seconds(1)) {
        self.stopTimeout = stopTimeout
        self.overrun = overrun
    }

    /// Names of the started services, in start order.
    package var names: [String] {
        started.withLock { $0.map(\.name) }
    }

    /// Starts `members` in order, after those already started. When one
    /// throws, every service of this call and earlier ones is stopped in
    /// reverse and the error rethrown.
    package func start(_ members: [Member]) throws {
        for (index, member) in members.enumerated() {
            do {
                try member.service.start()
            } catch {
                // The failed one and those after it: built, never started.
                started.withLock { $0.append(contentsOf: members[index...]) }
                stop(deadline: .now + stopTimeout)
                throw error
            }
            started.withLock { $0.append(member) }
        }
    }

    /// Stops the started services in reverse order; each may use the time
    /// until `deadline`. Returns the names of those left still stopping
    /// (empty when all returned). A second call finds nothing to stop.
    @discardableResult
    package func stop(deadline: ContinuousClock.Instant) -> [String] {
        let members = started.withLock { started in
            defer { started.removeAll() }
            return started
        }
        var late: [String] = []
        for member in members.reversed() {
            let done = Mailbox<Void>()
            let service = member.service
            let thread: JoinableThread
            do {
                thread = try JoinableThread(name: "tidings.stop") {
                    service.stop(deadline: deadline)
                    done.deliver(())
                }
            } catch {
                // No thread to spare: stop it here, without a bound.
                service.stop(deadline: deadline)
                continue
            }
            // A service whose turn comes after the deadline still gets the
            // overrun to close what it holds.
            if done.wait(until: max(deadline, .now) + overrun) != nil {
                thread.join()
            } else {
                thread.detach()
                late.append(member.name)
            }
        }
        return late
    }
}
