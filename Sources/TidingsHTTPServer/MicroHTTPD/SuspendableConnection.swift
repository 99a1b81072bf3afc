internal import CMicroHTTPD

/// A libmicrohttpd connection to suspend on its polling thread and resume
/// from any thread: a request whose handler runs on the handler pool, a
/// stream with nothing to send.
///
/// `@unchecked Sendable`: the handle is an `OpaquePointer`. Its owner
/// (`HandlerAnswer`, `HTTPResponseStream`) touches it only under its own
/// lock and only while libmicrohttpd cannot free the connection: while it
/// is suspended (libmicrohttpd frees no suspended connection, and
/// `MHD_resume_connection` may be called from any thread), or, for a
/// stream, before libmicrohttpd reports the request finished, which it
/// does before freeing the connection.
struct SuspendableConnection: @unchecked Sendable {
    private let handle: OpaquePointer

    init(_ connection: MicroHTTPDConnection) {
        handle = connection.handle
    }

    /// Takes the connection out of the polling loop until `resume`. Only
    /// from the access handler or a content reader, on its polling thread
    /// (libmicrohttpd's rule).
    func suspend() {
        MHD_suspend_connection(handle)
    }

    /// Puts it back; libmicrohttpd then calls the access handler or the
    /// content reader again. Exactly once per `suspend`.
    func resume() {
        MHD_resume_connection(handle)
    }
}
