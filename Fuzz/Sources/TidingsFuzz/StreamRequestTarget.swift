@testable import TidingsApp
@testable import TidingsDomain

/// What a client sends to the sync feed and the event stream: a cursor or
/// `Last-Event-ID`, a `types` list, a stream token; and the frames the
/// stream writes for any event data. The first byte picks.
enum StreamRequestTarget {
    static func run(_ input: FuzzInput) {
        let (selector, text) = input.selectorAndString
        switch selector % 4 {
        case 0:
            // A position reads back from its own token, and only digits pass.
            if let position = FeedPosition(token: text) {
                check(position.value >= 0, "\(text.debugDescription) -> \(position.value)")
                check(FeedPosition(token: position.token) == position, "\(position.token) did not read back")
                check(text.utf8.allSatisfy { (48...57).contains($0) }, "\(text.debugDescription) is not only digits")
            }
        case 1:
            if let types = EventsController.eventTypes(text) {
                check(!types.isEmpty, "\(text.debugDescription) gave no types")
                check(types.allSatisfy { text.contains($0.rawValue) }, "\(text.debugDescription) -> \(types)")
            }
        case 2:
            if StreamTokenStore.isWellFormed(text) {
                check(text.hasPrefix("tds_") && text.utf8.count == 47, "\(text.debugDescription) passed as a token")
            }
        default:
            // Whatever the data, a frame is one message: it ends with the
            // only blank line, and every line is a field the reader knows.
            // Bytes, not Characters: a combining mark after "data: " would
            // join the space into one Character and hide the prefix.
            let frame = ServerSentEvents.event(id: "1", type: "watch.changed", data: input.bytes)
            let lines = frame.split(separator: 10, omittingEmptySubsequences: false)
            check(frame.suffix(2) == [10, 10], "a frame does not end with a blank line")
            let fields = ["id: ", "event: ", "data: "].map { Array($0.utf8) }
            check(lines.dropLast(2).allSatisfy { line in fields.contains { line.starts(with: $0) } } && !frame.contains(13),
                  "a frame has a line that is no field, or a carriage return: \(lines)")
        }
    }
}
