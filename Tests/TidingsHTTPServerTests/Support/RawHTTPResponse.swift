import FoundationEssentials
import TidingsHTTPServer

struct RawHTTPResponse {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(body))
    }

    var problem: Problem? { try? decode(Problem.self) }
}

/// The members of an RFC 9457 document the server writes.
struct Problem: Decodable, Equatable {
    let type: String
    let title: String
    let status: Int
    let detail: String?
    let requestID: String?
    let field: String?

    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, field
        case requestID = "request_id"
    }
}
