import TidingsDomain
import TidingsHTTPServer

/// `headers` in a watch body: an object of header name -> value. Problems
/// name the header (`headers.X-Token: ...`) but never quote a value.
struct RequestHeadersBody: Decodable {
    let headers: RequestHeaders

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: HeaderName.self)
        let keys = container.allKeys.sorted { $0.stringValue < $1.stringValue }
        if keys.count > RequestHeaders.maximumCount {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "too many headers",
                    underlyingError: FieldProblem("must have at most \(RequestHeaders.maximumCount) headers")
                ))
        }
        var fields: [String: String] = [:]
        var seen: Set<String> = []
        for key in keys {
            let value = try container.decode(String.self, forKey: key)
            if let problem = RequestHeaders.problem(withName: key.stringValue) ?? RequestHeaders.problem(withValue: value) {
                throw container.fieldProblem(key, problem)
            }
            guard seen.insert(key.stringValue.lowercased()).inserted else {
                throw container.fieldProblem(key, "is given twice (header names ignore case)")
            }
            fields[key.stringValue] = value
        }
        headers = RequestHeaders(fields: fields)
    }
}

/// Any header name as a coding key.
private struct HeaderName: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
