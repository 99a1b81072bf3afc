import Foundation

@testable import TidingsApp
@testable import TidingsDomain

/// Fixed values of every written representation, with every escape
/// `JSONEncoder` had, nulls and dates with and without fractions: the
/// goldens in `RepresentationWriterTests` were recorded from them when the
/// representations were still `Encodable` too (decision 0053).
enum RepresentationFixtures {
    /// Every escape JSONEncoder has, `/`, non-ASCII and a 4-byte character.
    static let awkward: String = {
        var text = "a/b \"q\" \\ é \u{2028} 😀 \u{7F}"
        for byte in 0..<0x20 { text.unicodeScalars.append(Unicode.Scalar(UInt8(byte))) }
        return text
    }()

    static let moments = [
        Date(timeIntervalSince1970: 0),
        Date(timeIntervalSince1970: 1_796_000_000.123_456),
        Date(timeIntervalSince1970: 1_796_000_000.999_9),
    ]

    static func id(_ number: Int) -> UUID {
        UUID(uuidString: String(format: "6BA7B810-9DAD-11D1-80B4-%012X", number))!
    }

    static let watches: [Watch] = [
        watch(extract: nil, text: nil, date: nil, headerNames: [], result: nil),
        watch(
            extract: ExtractionRule(selector: .css("main .release")), text: "plain", date: moments[1],
            headerNames: ["authorization", "x-a"], result: .notModified),
        watch(
            extract: ExtractionRule(selector: .css(awkward), ignorePatterns: ["\\d+", awkward]), text: awkward, date: moments[2],
            headerNames: [], result: .changed),
        watch(
            extract: ExtractionRule(selector: .xpath("//h1"), ignorePatterns: ["x"]), text: "x", date: moments[0], headerNames: ["x-a"],
            result: .unchanged),
        watch(
            extract: ExtractionRule(selector: .jsonPointer("/tag_name"), ignorePatterns: []), text: nil, date: moments[1], headerNames: [],
            result: .baseline),
    ]

    static func watch(extract: ExtractionRule?, text: String?, date: Date?, headerNames: [String], result: CheckResult?) -> Watch {
        Watch(
            id: id(1), userID: id(2), targetID: id(3),
            url: text.map { "https://example.com/\($0)" } ?? "https://example.com/",
            name: text ?? "", intervalSeconds: 300, maxIntervalSeconds: text == nil ? 300 : Int.max, nextCheckAt: date,
            versionURL: text, versionPointer: text.map { "/\($0)" },
            extract: extract, headerNames: headerNames, versionHeaderNames: headerNames.reversed(), paused: text == nil,
            notify: text == nil ? .badge : .alert,
            state: text == nil ? .pending : .failing,
            lastCheckedAt: date, lastCheckResult: result, lastChangedAt: date,
            contentHash: text == nil ? nil : String(repeating: "ab", count: 32),
            unreadCount: Int.max, consecutiveFailures: 0, lastError: text,
            createdAt: date ?? moments[0], updatedAt: moments[1],
            fetchStatistics: FetchStatistics(requests: 7, notModified: 0, bytesReceived: -1, bytesSaved: Int.min)
        )
    }

    static let devices: [Device] = [nil, "plain", awkward].enumerated().map { index, text in
        Device(
            id: id(10 + index), userID: id(2), platform: index == 0 ? .web : .ios, pushToken: text ?? "token",
            appID: text, name: text, locale: text.map { _ in "en-GB" },
            lastSeenAt: moments[index], createdAt: moments[0], updatedAt: moments[index]
        )
    }

    static let badges: [Badge] = [
        Badge(count: 0, sequence: 0, updatedAt: moments[0]),
        Badge(count: 12, sequence: 345, updatedAt: moments[1]),
        Badge(count: Int.max, sequence: Int.min, updatedAt: moments[2]),
    ]

    static let feedPage: FeedPage = {
        var changes: [FeedChange] = []
        for (index, text) in [nil, "plain", awkward].enumerated() {
            let change = Change(
                id: id(20 + index), watchID: id(1), detectedAt: moments[index],
                previousHash: String(repeating: "ab", count: 32), newHash: String(repeating: "cd", count: 32),
                httpStatus: text == nil ? nil : 200, contentLength: text == nil ? nil : Int.max,
                diff: text ?? "", snapshotTruncated: text == nil,
                readAt: text == nil ? nil : moments[index]
            )
            changes.append(
                FeedChange(
                    change: change, position: FeedPosition(Int64(index) * 1_000_000_007),
                    watchName: text ?? "name", watchURL: "https://example.com/\(text ?? "")"
                ))
        }
        return FeedPage(changes: changes, next: FeedPosition(Int64.max), badge: badges[1])
    }()

    static let emptyFeedPage = FeedPage(changes: [], next: FeedPosition(0), badge: badges[0])

    static let checkResults: [WatchCheckResult] = [
        WatchCheckResult(watchID: id(1), result: .changed, changeID: id(30), state: .ok, error: nil),
        WatchCheckResult(watchID: id(1), result: .failed, changeID: nil, state: .failing, error: awkward),
    ]

    static let readReceipt = ReadReceipt(watchID: id(1), unreadCount: 3, badge: badges[1])
}
