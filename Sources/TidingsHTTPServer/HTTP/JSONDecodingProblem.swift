package import FoundationEssentials

/// Turns a `DecodingError` into a client-facing problem: 400 when the body is
/// not JSON at all, 422 naming the offending field otherwise.
package enum JSONDecodingProblem {
    package static func httpError(for error: DecodingError, body: Data) -> HTTPError {
        switch error {
        case .typeMismatch(let type, let context):
            return unprocessable(path: context.codingPath, problem: "expected \(describe(type))")
        case .valueNotFound(let type, let context):
            return unprocessable(path: context.codingPath, problem: "expected \(describe(type)), found null")
        case .keyNotFound(let key, let context):
            return unprocessable(path: context.codingPath + [key], problem: "is required")
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            let problem = (context.underlyingError as? FieldProblem)?.message ?? "invalid value"
            return unprocessable(path: context.codingPath, problem: problem)
        case .dataCorrupted:
            // JSONDecoder reports a number that does not fit its field (1.5
            // for an integer) like a syntax error, without a path; tell the
            // two apart by parsing the body without a schema.
            guard (try? JSONCoding.decoder.decode(AnyJSONValue.self, from: body)) != nil else {
                return HTTPError(.badRequest, detail: "The request body is not valid JSON.")
            }
            return HTTPError(
                .unprocessableContent,
                detail: "A number does not fit its field (for example a fraction or an out-of-range value for an integer)."
            )
        @unknown default:
            return HTTPError(.badRequest, detail: "The request body could not be decoded.")
        }
    }

    /// `items[2].name` style: keys joined by dots, array positions in brackets.
    package static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                if !path.isEmpty { path += "." }
                path += key.stringValue
            }
        }
        return path.isEmpty ? "(body)" : path
    }

    private static func unprocessable(path codingPath: [any CodingKey], problem: String) -> HTTPError {
        .field(fieldPath(codingPath), problem)
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is any BinaryInteger.Type: "an integer"
        case is any BinaryFloatingPoint.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "a different kind of value"
        }
    }
}
