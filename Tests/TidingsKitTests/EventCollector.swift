import Foundation
import TidingsKit

/// Reads an event stream on a task of its own and keeps what arrived, so a
/// test waits with `eventually` instead of blocking on the next element.
final class EventCollector: Sendable {
    private let received = Shared<[TidingsEvent]>([])
    private let ending = Shared<String?>(nil)
    private let reader: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<TidingsEvent, any Error>) {
        let received = received
        let ending = ending
        reader = Task {
            do {
                for try await event in stream { received.withLock { $0.append(event) } }
                ending.value = "finished"
            } catch {
                ending.value = "\(error)"
            }
        }
    }

    var events: [TidingsEvent] { received.value }

    /// "finished", the error the stream ended with, or nil while it runs.
    var end: String? { ending.value }

    /// The `change_id`s of the `watch.changed` events so far.
    var changeIDs: [String] {
        struct Changed: Decodable { let change_id: String }
        return events.filter { $0.type == .watchChanged }.compactMap { try? $0.decodeData(as: Changed.self).change_id }
    }

    func cancel() {
        reader.cancel()
    }

    /// Waits for the reading task to end.
    func finished() async {
        await reader.value
    }
}
