import FoundationEssentials

extension HTTPRequest {
    /// Decodes the body as JSON.
    ///
    /// Throws 415 unless the media type is `application/json` (parameters
    /// such as `charset` are allowed), 400 when the body is empty or not JSON,
    /// and 422 when the JSON does not fit `type`, naming the field path
    /// (`interval_seconds: expected an integer`).
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        guard let contentType = headers["Content-Type"], Self.isJSONMediaType(contentType) else {
            throw HTTPError(.unsupportedMediaType, detail: "The request body must be sent as application/json.")
        }
        guard !body.isEmpty else {
            throw HTTPError(.badRequest, detail: "The request body is empty.")
        }
        let data = Data(body)
        do {
            return try JSONCoding.decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw JSONDecodingProblem.httpError(for: error, body: data)
        } catch {
            throw HTTPError(.badRequest, detail: "The request body is not valid JSON.")
        }
    }

    static func isJSONMediaType(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        let trimmed = mediaType.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        return String(trimmed).lowercased() == "application/json"
    }
}
