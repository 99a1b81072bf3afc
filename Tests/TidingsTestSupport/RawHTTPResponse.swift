import FoundationEssentials
package import TidingsHTTPServer

package struct RawHTTPResponse {
    package let status: Int
    package let headers: HTTPHeaders
    package let body: [UInt8]

    package init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package var text: String { String(decoding: body, as: UTF8.self) }

    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(body))
    }

    package var problem: Problem? { try? decode(Problem.self) }
}

/// The members of an RFC 9457 document the server writes.
package struct Problem: Decodable, Equatable {
    package let type: String
    package let title: String
    package let status: Int
    package let detail: String?
    package let requestID: String?
    package let field: String?

    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, field
        case requestID = "request_id"
    }
}
