/// One NOTIFY as a listening connection received it.
public struct PostgresNotification: Sendable, Equatable {
    public let channel: String
    public let payload: String
    /// The server process that sent it.
    public let senderProcessID: Int32

    public init(channel: String, payload: String, senderProcessID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderProcessID = senderProcessID
    }
}
