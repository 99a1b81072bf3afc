@testable import TidingsApp

/// Values of TIDINGS_* environment variables. The first byte picks the
/// parser. Durations, sizes and counts stay within zero and their explicit
/// upper bounds; listen ports are in range; a duration list has 1 to 50
/// entries.
enum ConfigValuesTarget {
    static func run(_ input: FuzzInput) {
        let (selector, text) = input.selectorAndString
        switch selector % 8 {
        case 0:
            if let duration = ValueParsers.duration(text) {
                check(duration >= .zero && duration <= ValueParsers.longestDuration, "duration \(text.debugDescription) -> \(duration)")
            }
        case 1:
            if let size = ValueParsers.byteCount(text) {
                check(size >= 0 && size <= ValueParsers.largestByteCount, "size \(text.debugDescription) -> \(size)")
            }
        case 2:
            if let address = ValueParsers.listenAddress(text) {
                check((0...65_535).contains(address.port) && !address.host.isEmpty, "listen \(text.debugDescription) -> \(address)")
            }
        case 3:
            if let list = ValueParsers.durationList(text) {
                check((1...50).contains(list.count) && list.allSatisfy { $0 >= .zero && $0 <= ValueParsers.longestDuration }, "list \(text.debugDescription) -> \(list)")
            }
        case 4:
            _ = ValueParsers.bool(text)
        case 5:
            _ = ValueParsers.httpThreading(text)
        case 6:
            if let value = ValueParsers.count(text) {
                check((0...ValueParsers.largestCount).contains(value), "count \(text.debugDescription) -> \(value)")
            }
        default:
            if let value = ValueParsers.positiveInteger(text) {
                check((1...ValueParsers.largestCount).contains(value), "positive \(text.debugDescription) -> \(value)")
            }
        }
    }
}
