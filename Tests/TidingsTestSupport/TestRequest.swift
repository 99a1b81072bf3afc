/// A request as the test origin server received it.
package struct TestRequest: Sendable {
    package var method: String
    package var path: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(method: String, path: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
