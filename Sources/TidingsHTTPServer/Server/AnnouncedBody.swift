/// How a request body is taken, judged from the length its head announces
/// (`RequestPipeline.announcedBody`).
enum AnnouncedBody: Equatable {
    /// Within the path's limit, or not announced (chunked or none).
    case withinLimit
    /// Over the limit: read and thrown away, then answered 413.
    case drainedThenRefused
    /// Over the limit: answered 413 before any of it is read.
    case refusedUnread
}
