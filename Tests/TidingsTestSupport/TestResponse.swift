/// What the test origin server answers; routes build one per request.
package struct TestResponse: Sendable {
    package var status = 200
    package var headers: [(name: String, value: String)] = []
    package var body: [UInt8] = []
    /// Send the body with Transfer-Encoding: chunked instead of Content-Length.
    package var chunked = false
    /// Never answer; the connection stays open until the server stops.
    package var hangs = false

    package init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        chunked: Bool = false,
        hangs: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.chunked = chunked
        self.hangs = hangs
    }

    package static func text(_ text: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
    }

    package static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }

    package static let hang = TestResponse(hangs: true)
}
