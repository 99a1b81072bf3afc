package import TidingsJSON

/// A value that writes its own JSON with `JSONWriter`, keys in sorted order
/// and dates as `JSONCoding.encoder` writes them, so a client cannot tell
/// which one wrote a body. A representation is this or `Encodable`, never
/// both (decision 0053): the hot ones (watches, devices, badges, the feed)
/// are written, the rest encoded.
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
