import Foundation
import Testing
@testable import TidingsApp
@testable import TidingsDomain
import TidingsHTTPServer
import TidingsJSON

/// The hand-written JSON of the hot representations must be byte for byte
/// what `JSONEncoder` makes of their `Encodable` side (the reference, still
/// used for lists): same keys, order, escapes, nulls and date format.
@Suite struct RepresentationWriterTests {
    /// Through the `Encodable` overload only, whatever else `T` conforms to.
    private static func encoded<T: Encodable>(_ value: T) -> String {
        String(decoding: HTTPResponse.json(value).body, as: UTF8.self)
    }

    private static func written(_ value: some JSONWritable) -> String {
        String(decoding: value.jsonBytes, as: UTF8.self)
    }

    /// Every escape JSONEncoder has, `/`, non-ASCII and a 4-byte character.
    private static let awkward: String = {
        var text = "a/b \"q\" \\ é \u{2028} 😀 \u{7F}"
        for byte in 0..<0x20 { text.unicodeScalars.append(Unicode.Scalar(UInt8(byte))) }
        return text
    }()

    private static let moments = [
        Date(timeIntervalSince1970: 0),
        Date(timeIntervalSince1970: 1_796_000_000.123_456),
        Date(timeIntervalSince1970: 1_796_000_000.999_9),
    ]

    private static func watch(
        extract: ExtractionRule?,
        text: String?,
        date: Date?,
        headerNames: [String],
        result: CheckResult?
    ) -> Watch {
        Watch(
            id: UUID(), userID: UUID(), targetID: UUID(),
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

    @Test(arguments: [
        nil,
        ExtractionRule(selector: .css("main .release")),
        ExtractionRule(selector: .css(awkward), ignorePatterns: ["\\d+", awkward]),
        ExtractionRule(selector: .xpath("//h1"), ignorePatterns: ["x"]),
        ExtractionRule(selector: .jsonPointer("/tag_name"), ignorePatterns: []),
    ])
    func watchMatchesTheEncoder(extract: ExtractionRule?) {
        for text in [nil, "plain", Self.awkward] {
            for date in [nil] + Self.moments {
                for (names, result) in [([], nil), (["authorization", "x-a"], CheckResult.notModified)] as [([String], CheckResult?)] {
                    let representation = WatchRepresentation(
                        Self.watch(extract: extract, text: text, date: date, headerNames: names, result: result)
                    )
                    #expect(Self.written(representation) == Self.encoded(representation))
                }
            }
        }
    }

    @Test func deviceMatchesTheEncoder() {
        for text in [nil, "plain", Self.awkward] {
            for moment in Self.moments {
                let device = Device(
                    id: UUID(), userID: UUID(), platform: .web, pushToken: text ?? "token",
                    appID: text, name: text, locale: text.map { _ in "en-GB" },
                    lastSeenAt: moment, createdAt: Self.moments[0], updatedAt: moment
                )
                let representation = DeviceRepresentation(device)
                #expect(Self.written(representation) == Self.encoded(representation))
            }
        }
    }

    @Test func badgeMatchesTheEncoder() {
        for moment in Self.moments {
            for (count, sequence) in [(0, 0), (12, 345), (Int.max, Int.min)] {
                let representation = BadgeRepresentation(Badge(count: count, sequence: sequence, updatedAt: moment))
                #expect(Self.written(representation) == Self.encoded(representation))
            }
        }
    }

    @Test func feedPageMatchesTheEncoder() {
        var changes: [FeedChange] = []
        for (index, text) in [nil, "plain", Self.awkward].enumerated() {
            for moment in Self.moments {
                let change = Change(
                    id: UUID(), watchID: UUID(), detectedAt: moment,
                    previousHash: String(repeating: "ab", count: 32), newHash: String(repeating: "cd", count: 32),
                    httpStatus: text == nil ? nil : 200, contentLength: text == nil ? nil : Int.max,
                    diff: text ?? "", snapshotTruncated: text == nil,
                    readAt: text == nil ? nil : moment
                )
                changes.append(FeedChange(
                    change: change, position: FeedPosition(Int64(index) * 1_000_000_007),
                    watchName: text ?? "name", watchURL: "https://example.com/\(text ?? "")"
                ))
            }
        }
        for page in [[], Array(changes.prefix(1)), changes] {
            for moment in Self.moments {
                let representation = FeedPageRepresentation(FeedPage(
                    changes: page, next: FeedPosition(Int64.max),
                    badge: Badge(count: page.count, sequence: 7, updatedAt: moment)
                ))
                #expect(Self.written(representation) == Self.encoded(representation))
            }
        }
    }

    @Test func uuidIsTheCanonicalLowerCaseForm() {
        let id = UUID()
        var writer = JSONWriter()
        writer.value(id)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(id.canonicalString)\"")
    }
}
