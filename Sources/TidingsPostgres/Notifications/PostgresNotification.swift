/// One NOTIFY as a listening connection received it.
package struct PostgresNotification: Sendable, Equatable {
    package let channel: String
    package let payload: String
    /// The server process that sent it.
    package let senderProcessID: Int32

    package init(channel: String, payload: String, senderProcessID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderProcessID = senderProcessID
    }
}
