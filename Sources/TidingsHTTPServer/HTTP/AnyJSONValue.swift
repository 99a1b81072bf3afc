/// Any JSON value, discarded: decoding it only checks that a body is
/// well-formed JSON.
struct AnyJSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { return }
        if (try? container.decode(Bool.self)) != nil { return }
        if (try? container.decode(Double.self)) != nil { return }
        if (try? container.decode(String.self)) != nil { return }
        if (try? container.decode([AnyJSONValue].self)) != nil { return }
        _ = try container.decode([String: AnyJSONValue].self)
    }
}
