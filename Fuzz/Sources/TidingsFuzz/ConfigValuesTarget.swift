@testable import TidingsApp

/// Values of TIDINGS_* environment variables. The first byte picks the
/// parser. Durations and sizes are never negative; listen ports are in
/// range; a duration list has 1 to 50 entries.
enum ConfigValuesTarget {
    static func run(_ input: FuzzInput) {
        let (selector, text) = input.selectorAndString
        switch selector % 7 {
        case 0:
            if let duration = ValueParsers.duration(text) {
                check(duration >= .zero, "duration \(text.debugDescription) -> \(duration)")
            }
        case 1:
            if let size = ValueParsers.byteCount(text) {
                check(size >= 0, "size \(text.debugDescription) -> \(size)")
            }
        case 2:
            if let address = ValueParsers.listenAddress(text) {
                check((0...65_535).contains(address.port) && !address.host.isEmpty, "listen \(text.debugDescription) -> \(address)")
            }
        case 3:
            if let list = ValueParsers.durationList(text) {
                check((1...50).contains(list.count) && list.allSatisfy { $0 >= .zero }, "list \(text.debugDescription) -> \(list)")
            }
        case 4:
            _ = ValueParsers.bool(text)
        case 5:
            _ = ValueParsers.httpThreading(text)
        default:
            if let value = ValueParsers.positiveInteger(text) {
                check(value > 0, "positive \(text.debugDescription) -> \(value)")
            }
        }
    }
}
