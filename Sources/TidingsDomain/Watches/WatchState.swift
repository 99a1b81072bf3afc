/// Where a watch stands: `pending` until its first check, then `ok` or
/// `failing` (after several consecutive failed checks). Pausing is separate.
package enum WatchState: String, Sendable, CaseIterable {
    case pending
    case ok
    case failing
}
