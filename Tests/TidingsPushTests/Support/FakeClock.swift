import Foundation
import TidingsSynchronization

/// A wall clock the test moves by hand.
final class FakeClock: Sendable {
    private let current: AdaptiveMutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = AdaptiveMutex(start)
    }

    func now() -> Date {
        current.withLock { $0 }
    }

    func advance(_ duration: Duration) {
        current.withLock {
            $0 = $0.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
    }

    var reading: @Sendable () -> Date {
        { [self] in now() }
    }
}
