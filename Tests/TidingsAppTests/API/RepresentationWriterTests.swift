import Foundation
import Testing
import TidingsHTTPServer
import TidingsJSON

@testable import TidingsApp
@testable import TidingsDomain

/// The written representations answer byte for byte what they answered when
/// they were `Encodable` (the goldens were recorded through `JSONEncoder`):
/// same keys, order, escapes, nulls and date format.
@Suite struct RepresentationWriterTests {
    private typealias Fixtures = RepresentationFixtures
    private typealias Goldens = RepresentationGoldens

    private static func written(_ value: some JSONWritable) -> String {
        String(decoding: HTTPResponse.json(value).body, as: UTF8.self)
    }

    @Test func watches() {
        let goldens = [Goldens.watch0, Goldens.watch1, Goldens.watch2, Goldens.watch3, Goldens.watch4]
        for (watch, golden) in zip(Fixtures.watches, goldens) {
            #expect(Self.written(WatchRepresentation(watch)) == golden)
        }
        let list = ListResponse(data: Fixtures.watches.prefix(2).map(WatchRepresentation.init), nextCursor: "abc")
        #expect(Self.written(list) == Goldens.watchList)
        for (index, result) in Fixtures.checkResults.enumerated() {
            let check = CheckRepresentation(result: result, watch: WatchRepresentation(Fixtures.watches[index + 1]))
            #expect(Self.written(check) == [Goldens.check0, Goldens.check1][index])
        }
    }

    @Test func devices() {
        for (device, golden) in zip(Fixtures.devices, [Goldens.device0, Goldens.device1, Goldens.device2]) {
            #expect(Self.written(DeviceRepresentation(device)) == golden)
        }
        let representations = Fixtures.devices.map(DeviceRepresentation.init)
        #expect(Self.written(ListResponse(data: representations, nextCursor: nil)) == Goldens.deviceList)
        #expect(Self.written(ListResponse<DeviceRepresentation>(data: [], nextCursor: nil)) == Goldens.emptyList)
        #expect(Self.written(RemovedDevicesRepresentation(removed: representations)) == Goldens.removed)
        #expect(Self.written(RemovedDevicesRepresentation(removed: [])) == Goldens.removedEmpty)
    }

    @Test func badgesAndReads() {
        for (badge, golden) in zip(Fixtures.badges, [Goldens.badge0, Goldens.badge1, Goldens.badge2]) {
            #expect(Self.written(BadgeRepresentation(badge)) == golden)
        }
        #expect(Self.written(ReadReceiptRepresentation(receipt: Fixtures.readReceipt)) == Goldens.receipt)
    }

    @Test func feedPages() {
        #expect(Self.written(FeedPageRepresentation(Fixtures.feedPage)) == Goldens.feed)
        #expect(Self.written(FeedPageRepresentation(Fixtures.emptyFeedPage)) == Goldens.feedEmpty)
    }

    /// The other list items still go through the encoder, with the same shape.
    @Test func encodedItemsKeepTheListShape() {
        struct Item: Encodable, Sendable { let name: String }
        let body = String(decoding: HTTPResponse.json(ListResponse(data: [Item(name: "a/b")], nextCursor: nil)).body, as: UTF8.self)
        #expect(body == #"{"data":[{"name":"a/b"}],"next_cursor":null}"#)
    }

    @Test func uuidIsTheCanonicalLowerCaseForm() {
        let id = UUID()
        var writer = JSONWriter()
        writer.value(id)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(id.canonicalString)\"")
    }
}
