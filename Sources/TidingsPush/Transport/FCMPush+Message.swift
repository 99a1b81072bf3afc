import TidingsJSON

extension FCMPush {
    /// Why FCM would refuse this push before it is sent, or nil. A token
    /// that cannot be one makes the device gone, as FCM's own answer would.
    package func refusal() -> PushResult? {
        guard (1...Self.maximumTokenLength).contains(token.utf8.count),
            token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return .deviceGone(reason: "FCM: INVALID_ARGUMENT: the registration token is empty, too long or not plain ASCII") }
        let reserved = data.keys.contains { key in
            let lowered = key.lowercased()
            return Self.reservedDataKeys.contains(lowered) || lowered.hasPrefix("google") || lowered.hasPrefix("gcm")
        }
        if reserved {
            return .failed(reason: "a data key is reserved by FCM (from, notification, message_type, google*, gcm*)")
        }
        let size = data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        if size > Self.maximumDataSize {
            return .failed(reason: "the data is \(size) bytes; FCM accepts at most \(Self.maximumDataSize)")
        }
        return nil
    }

    /// The body of `messages:send`, data keys in sorted order.
    package func messageBody() -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + token.utf8.count)
        writer.beginObject()
        writer.key("message")
        writer.beginObject()
        writer.key("android")
        writer.beginObject()
        if let collapseKey {
            writer.key("collapse_key")
            writer.value(collapseKey)
        }
        writer.key("priority")
        writer.value(priority.rawValue)
        writer.endObject()
        writer.key("data")
        writer.beginObject()
        for (key, value) in data.sorted(by: { $0.key < $1.key }) {
            writer.key(key)
            writer.value(value)
        }
        writer.endObject()
        writer.key("token")
        writer.value(token)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
