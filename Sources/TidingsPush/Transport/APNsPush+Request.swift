import FoundationEssentials
import TidingsObservability

extension APNsPush {
    /// Why APNs would refuse this push before it is sent, or nil. A token
    /// that is not hexadecimal makes the device gone, as APNs' own
    /// `BadDeviceToken` would.
    package func refusal() -> PushResult? {
        guard (1...Self.maximumTokenLength).contains(token.utf8.count), token.utf8.allSatisfy(Self.isHexDigit) else {
            return .deviceGone(reason: "APNs: BadDeviceToken: the device token is empty, too long or not hexadecimal")
        }
        if payload.isEmpty {
            return .failed(reason: "APNs: PayloadEmpty: the payload is empty")
        }
        if payload.count > Self.maximumPayloadSize {
            return .failed(
                reason: "APNs: PayloadTooLarge: the payload is \(payload.count) bytes; APNs accepts at most \(Self.maximumPayloadSize)")
        }
        if let collapseID {
            guard collapseID.utf8.count <= Self.maximumCollapseIDLength else {
                return .failed(
                    reason:
                        "APNs: BadCollapseId: the collapse id is \(collapseID.utf8.count) bytes; APNs accepts at most \(Self.maximumCollapseIDLength)"
                )
            }
            guard !collapseID.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                return .failed(reason: "APNs: BadCollapseId: the collapse id contains control characters")
            }
        }
        if pushType == .background && priority != .powerConsiderate {
            return .failed(reason: "APNs: BadPriority: background pushes must have priority 5")
        }
        return nil
    }

    /// The `apns-*` headers of this push, with the provider token.
    package func headers(topic: String, providerToken: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer \(providerToken)"),
            ("apns-topic", topic),
            ("apns-push-type", pushType.rawValue),
            ("apns-priority", String(priority.rawValue)),
            ("content-type", "application/json"),
        ]
        if let expiration {
            headers.append(("apns-expiration", String(max(expiration.unitsSince1970(perSecond: 1), 0))))
        }
        if let collapseID {
            headers.append(("apns-collapse-id", collapseID))
        }
        if let id {
            headers.append(("apns-id", id.uuidString))
        }
        return headers
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
