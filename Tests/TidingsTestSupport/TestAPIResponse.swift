import Foundation

/// An answer of the API, as `TestAPIClient` received it.
package struct TestAPIResponse: Sendable {
    package let status: Int
    package let headers: [(name: String, value: String)]
    package let body: [UInt8]

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package var text: String {
        String(decoding: body, as: UTF8.self)
    }

    package var isProblem: Bool {
        header("content-type")?.hasPrefix("application/problem+json") == true
    }

    /// The body as a JSON object; throws when it is not one.
    package func object() throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw MockError("not a JSON object (\(status)): \(text)")
        }
        return object
    }

    /// `data` of a list response.
    package func items() throws -> [[String: Any]] {
        guard let items = try object()["data"] as? [[String: Any]] else { throw MockError("no data list: \(text)") }
        return items
    }
}
