import FoundationEssentials

extension HTTPRequest {
    /// Decodes the body as JSON.
    ///
    /// Throws 415 unless the media type is `application/json` (parameters
    /// such as `charset` are allowed), 400 when the body is empty or not JSON,
    /// and 422 when the JSON does not fit `type`, naming the field path
    /// (`interval_seconds: expected an integer`), or names a member twice
    /// in one object.
    package func decodeJSON<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        guard let contentType = headers["Content-Type"], Self.isJSONMediaType(contentType) else {
            throw HTTPError(.unsupportedMediaType, detail: "The request body must be sent as application/json.")
        }
        guard !body.isEmpty else {
            throw HTTPError(.badRequest, detail: "The request body is empty.")
        }
        // JSONDecoder also reads UTF-16 and UTF-32 (and stops at a NUL),
        // while the duplicate-member scan reads UTF-8 bytes: a UTF-16 body
        // could name a member twice unseen. RFC 8259 wants UTF-8, whose JSON
        // never holds a NUL byte; every UTF-16 or UTF-32 JSON text does.
        guard !body.contains(0) else {
            throw HTTPError(.badRequest, detail: "The request body must be JSON in UTF-8.")
        }
        let data = Data(body)
        do {
            let value = try JSONCoding.decoder.decode(T.self, from: data)
            if let repeated = JSONDuplicateMembers.firstRepeated(in: body) {
                throw HTTPError.field(repeated, "appears more than once")
            }
            return value
        } catch let error as HTTPError {
            throw error
        } catch let error as DecodingError {
            throw JSONDecodingProblem.httpError(for: error, body: data)
        } catch {
            throw HTTPError(.badRequest, detail: "The request body is not valid JSON.")
        }
    }

    /// Compares bytes: every request with a body asks, and going through
    /// `Character`s (reversing, trimming, lower-casing) cost 5 % of the
    /// CPU of `POST /v1/devices`.
    static func isJSONMediaType(_ contentType: String) -> Bool {
        var mediaType = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }
        while let first = mediaType.first, isASCIIWhitespace(first) { mediaType = mediaType.dropFirst() }
        while let last = mediaType.last, isASCIIWhitespace(last) { mediaType = mediaType.dropLast() }
        let expected = "application/json".utf8
        guard mediaType.count == expected.count else { return false }
        return zip(mediaType, expected).allSatisfy { byte, wanted in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 == wanted : byte == wanted
        }
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (0x09...0x0D).contains(byte)
    }
}
