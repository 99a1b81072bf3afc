import TidingsJSON

/// A value that writes its own JSON with `JSONWriter`, byte for byte what its
/// `Encodable` conformance produces through `JSONCoding.encoder`, only
/// cheaper. `HTTPResponse.json` prefers it when a type has both; the
/// `Encodable` side stays the reference (and serves lists of the value).
package protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    /// The bytes `write(to:)` produces.
    package var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}
