import Synchronization
import TidingsIP
import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// getaddrinfo for `SSRFGuard.checkHost`, bounded in time; transfers
/// resolve inside libcurl. getaddrinfo cannot be cancelled and may block
/// for the resolver's whole timeout (seconds per attempt), so a lookup runs
/// on a thread of its own and the caller waits at most `timeout` for it.
/// Lookups still running are capped: past the cap no new one starts, and
/// the caller hears "unknown", as after a timeout.
enum HostResolver {
    enum Answer: Equatable {
        case addresses([IPAddress])
        /// Not resolvable now: no such name, no address, the resolver
        /// failed or did not answer within the time.
        case unknown
    }

    /// Lookups at most running at once, answered or abandoned.
    static let maximumRunning = 16
    private static let running = Atomic<Int>(0)

    static func resolve(_ host: String, within timeout: Duration) -> Answer {
        guard running.add(1, ordering: .acquiringAndReleasing).newValue <= maximumRunning else {
            running.subtract(1, ordering: .acquiringAndReleasing)
            return .unknown
        }
        let answer = Mailbox<Answer>()
        let lookup: JoinableThread
        do {
            lookup = try JoinableThread(name: "tidings.resolve") {
                let addresses = lookUp(host)
                running.subtract(1, ordering: .acquiringAndReleasing)
                answer.deliver(addresses.isEmpty ? .unknown : .addresses(addresses))
            }
        } catch {
            running.subtract(1, ordering: .acquiringAndReleasing)
            return .unknown
        }
        // Nobody joins it: a lookup past the timeout ends on its own.
        lookup.detach()
        if let answered = answer.wait(timeout: timeout) { return answered }
        return answer.abandon() ?? .unknown
    }

    /// Every address the name has; empty when it has none or the lookup failed.
    private static func lookUp(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        // Socket type 0 lists each address once per type; the caller only
        // checks addresses, so duplicates are harmless.
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr,
                let address = IPAddress(socketAddress: socketAddress, length: Int(current.pointee.ai_addrlen))
            {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
