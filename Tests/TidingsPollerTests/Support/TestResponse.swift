/// What the test origin server answers; routes build one per request.
struct TestResponse: Sendable {
    var status = 200
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Send the body with Transfer-Encoding: chunked instead of Content-Length.
    var chunked = false
    /// Never answer; the connection stays open until the server stops.
    var hangs = false

    static func text(_ text: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
    }

    static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }

    static let hang = TestResponse(hangs: true)
}
