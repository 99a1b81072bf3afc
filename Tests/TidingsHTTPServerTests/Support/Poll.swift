#if canImport(Glibc)
import Glibc
#endif

/// Checks `condition` every few milliseconds until it holds or `timeout`
/// passes; returns whether it held. For events the server reports
/// asynchronously (log lines, metrics written after the response is sent).
func poll(timeout: Duration = .seconds(3), until condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
