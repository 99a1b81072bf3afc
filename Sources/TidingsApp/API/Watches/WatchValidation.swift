import TidingsDomain
import TidingsHTTPServer

/// Field rules shared by the create and update bodies, reported the way
/// `decodeJSON` reports every field problem (`HTTPError.field`).
enum WatchValidation {
    static func url<Key: CodingKey>(_ text: String, key: Key, in container: KeyedDecodingContainer<Key>) throws -> NormalizedURL {
        do {
            return try URLNormalizer.normalize(text)
        } catch {
            throw container.fieldProblem(key, error.message)
        }
    }

    static func jsonPointer<Key: CodingKey>(_ pointer: String, key: Key, in container: KeyedDecodingContainer<Key>) throws {
        if pointer.unicodeScalars.count > JSONPointer.maximumLength {
            throw container.fieldProblem(key, "must be at most \(JSONPointer.maximumLength) characters")
        }
        // PostgreSQL text and jsonb cannot hold NUL, and no JSON key needs
        // an unescaped control character in a pointer.
        if pointer.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw container.fieldProblem(key, "must not contain control characters")
        }
        if !JSONPointer.isValid(pointer) {
            throw container.fieldProblem(key, "must be a JSON pointer (RFC 6901) such as \"/version\"")
        }
    }

    /// `version_url` and `version_pointer` only make sense together: the
    /// missing one of a half-set pair, as (field, message), or nil.
    static func versionPairProblem(url: NormalizedURL?, pointer: String?) -> (field: String, message: String)? {
        switch (url, pointer) {
        case (_?, nil): ("version_pointer", "is required when version_url is set")
        case (nil, _?): ("version_url", "is required when version_pointer is set")
        default: nil
        }
    }

    static let versionHeadersWithoutURL = "are sent only to version_url, which is not set"

    /// The version check of a merged update; 422 for a half-set pair, or
    /// for version headers without a version URL to send them to.
    static func versionCheck(url: NormalizedURL?, pointer: String?, headers: RequestHeaders) throws(HTTPError) -> VersionCheck? {
        if let problem = versionPairProblem(url: url, pointer: pointer) {
            throw HTTPError.field(problem.field, problem.message)
        }
        guard let url, let pointer else {
            if !headers.fields.isEmpty { throw HTTPError.field("version_headers", versionHeadersWithoutURL) }
            return nil
        }
        return VersionCheck(url: url, pointer: pointer, headers: headers)
    }
}
