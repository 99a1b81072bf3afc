internal import CZlib

/// DEFLATE (RFC 1951, no zlib or gzip wrapper), as a zip entry holds it,
/// through zlib. The output is bounded before it is produced: inflating
/// stops as soon as it would pass `limit`, so a small input that expands
/// without end costs at most `limit` bytes of memory.
package enum RawInflate {
    package static func inflate(_ input: ArraySlice<UInt8>, limit: Int) throws(CompressionError) -> [UInt8] {
        var stream = z_stream()
        guard CZlib_inflate_init_raw(&stream) == Z_OK else { throw CompressionError("zlib could not start inflating") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = Array(input)
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(clamping: source.count)
            while true {
                let result = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    return zlib_inflate(&stream)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else { return Z_BUF_ERROR }
                output.append(contentsOf: chunk[..<produced])
                if result == Z_STREAM_END { return Z_OK }
                // No progress possible: the input ended before the stream did.
                if result != Z_OK || (produced == 0 && stream.avail_in == 0) { return result == Z_OK ? Z_DATA_ERROR : result }
            }
        }
        switch status {
        case Z_OK: return output
        case Z_BUF_ERROR: throw CompressionError("expands to more than \(limit) bytes")
        default: throw CompressionError("is not valid DEFLATE data")
        }
    }

    /// The CRC-32 a zip entry records for its uncompressed bytes.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: zlib_crc32(0, buffer.baseAddress, UInt32(clamping: buffer.count)))
        }
    }

    private static func zlib_inflate(_ stream: inout z_stream) -> Int32 {
        CZlib.inflate(&stream, Z_NO_FLUSH)
    }

    private static func zlib_crc32(_ crc: UInt, _ bytes: UnsafePointer<UInt8>?, _ count: UInt32) -> UInt {
        CZlib.crc32(crc, bytes, count)
    }
}
