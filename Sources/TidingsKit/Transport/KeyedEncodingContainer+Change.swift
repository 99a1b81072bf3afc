extension KeyedEncodingContainer {
    /// A PATCH field: absent when unchanged, `null` when cleared.
    mutating func encodeChange<T: Encodable>(_ change: T??, forKey key: Key) throws {
        switch change {
        case .none: break
        case .some(.none): try encodeNil(forKey: key)
        case .some(.some(let value)): try encode(value, forKey: key)
        }
    }
}
