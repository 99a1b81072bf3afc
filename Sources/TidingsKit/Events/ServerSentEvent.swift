/// One message of a `text/event-stream`, as the parser dispatches it.
struct ServerSentEvent: Equatable {
    var id: String?
    var event: String
    var data: String
}
