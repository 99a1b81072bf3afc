/// What the test origin server answers; routes build one per request.
public struct TestResponse: Sendable {
    public var status = 200
    public var headers: [(name: String, value: String)] = []
    public var body: [UInt8] = []
    /// Send the body with Transfer-Encoding: chunked instead of Content-Length.
    public var chunked = false
    /// Never answer; the connection stays open until the server stops.
    public var hangs = false

    public init(
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

    public static func text(_ text: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
    }

    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }

    public static let hang = TestResponse(hangs: true)
}
