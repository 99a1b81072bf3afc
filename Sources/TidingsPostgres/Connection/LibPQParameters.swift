internal import CLibPQ

/// Lays query parameters out as the `const char * const *` array libpq
/// expects, valid only inside `body`.
enum LibPQParameters {
    static func withCStrings<Result>(
        _ values: [String?],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws(PostgresError) -> Result
    ) throws(PostgresError) -> Result {
        // libpq takes no array for a statement without parameters; most
        // fixed reads have none, and they skip the buffers below.
        guard !values.isEmpty else { return try body(nil) }
        // One buffer with every NUL-terminated value, and each value's offset in it.
        var buffer: [CChar] = []
        var offsets: [Int?] = []
        offsets.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            guard let value else {
                offsets.append(nil)
                continue
            }
            let bytes = value.utf8CString
            guard !bytes.dropLast().contains(0) else {
                // C strings would silently cut the value short at the NUL.
                throw PostgresError(
                    code: .server, sqlState: "22021",
                    message: "parameter $\(index + 1) contains a NUL character, which PostgreSQL text cannot hold")
            }
            offsets.append(buffer.count)
            buffer.append(contentsOf: bytes)
        }
        return try buffer.withUnsafeBufferPointer { (storage) throws(PostgresError) in
            let pointers = offsets.map { offset in offset.map { UnsafePointer(storage.baseAddress! + $0) } }
            return try pointers.withUnsafeBufferPointer { (array) throws(PostgresError) in try body(array.baseAddress) }
        }
    }
}
