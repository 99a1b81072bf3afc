/// The `text/event-stream` format (WHATWG HTML 9.2.6) as a value fed with
/// bytes in whatever chunks the network delivers: lines end with LF, CR or
/// CRLF (even split across chunks), `:` starts a comment (the heartbeat),
/// `data:` lines join with LF, an empty line dispatches, `id:` persists
/// across messages and `retry:` takes digits only.
struct ServerSentEventParser {
    /// The id as of the last complete message: the `Last-Event-ID` to
    /// resume with. An `id:` of a message cut off before its blank line
    /// does not count, as that message never arrived.
    private(set) var lastEventID: String?
    private var idBuffer: String?
    /// The reconnection time the server asked for, in milliseconds.
    private(set) var retryMilliseconds: Int?
    /// The most bytes of one line or of one message's data; a stream past
    /// it is not one Tidings sends.
    let maximumMessageSize: Int

    private var line: [UInt8] = []
    private var eventType = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var afterCarriageReturn = false

    struct MessageTooLarge: Error {}

    init(lastEventID: String? = nil, maximumMessageSize: Int = 1 << 20) {
        self.lastEventID = lastEventID
        idBuffer = lastEventID
        self.maximumMessageSize = maximumMessageSize
    }

    /// Feeds bytes; returns the messages they completed.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A, 0x0D:
                afterCarriageReturn = byte == 0x0D
                if let event = try endLine() { events.append(event) }
            default:
                line.append(byte)
                if line.count > maximumMessageSize { throw MessageTooLarge() }
            }
        }
        return events
    }

    private mutating func endLine() throws -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let field = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var valueStart = colon.map { line.index(after: $0) } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch field {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
            if data.count > maximumMessageSize { throw MessageTooLarge() }
        case "id":
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }), value.count <= 9 {
                retryMilliseconds = Int(String(decoding: value, as: UTF8.self))
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
        }
        lastEventID = idBuffer
        guard hasData else { return nil }
        return ServerSentEvent(
            id: lastEventID, event: eventType.isEmpty ? "message" : eventType, data: String(decoding: data, as: UTF8.self))
    }
}
