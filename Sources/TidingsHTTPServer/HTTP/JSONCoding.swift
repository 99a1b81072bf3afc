import FoundationEssentials
import TidingsObservability

/// The shared JSON configuration of the HTTP edge: sorted keys, unescaped
/// slashes, ISO 8601 dates with fractional seconds.
///
/// One encoder and one decoder serve every request: swift-foundation's
/// `JSONEncoder`/`JSONDecoder` are `Sendable` and guard their options with a
/// lock, and these are never mutated after creation.
enum JSONCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(UTCTimestamp.format(date))
        }
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) {
                return date
            }
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected an ISO 8601 date-time"
            )
        }
        return decoder
    }()
}
