/// Reads named files out of a zip archive held in memory, trusting
/// nothing the archive says: the central directory is found from the end
/// and bounded, every offset and size is checked against the bytes there
/// are, zip64, encrypted and split archives are refused, and each entry
/// read is inflated under a size cap and a ratio cap (and all of them
/// under a total) and checked against its CRC-32. No other entry is
/// decompressed, so a backup with thousands of snapshot files (or a "zip
/// bomb" among them) costs a walk of its directory and nothing more.
package struct ZipArchive {
    package struct Limits: Sendable {
        /// Entries the central directory may list.
        package var maximumEntries = 200_000
        /// Bytes the entry read may expand to.
        package var maximumEntrySize = 32 << 20
        /// How many times its compressed size the entry may expand to
        /// (DEFLATE reaches about 1,032 at best; real JSON 5-20).
        package var maximumRatio = 200
        /// Entries one call may read, and their bytes together.
        package var maximumEntriesRead = 20_000
        package var maximumTotalSize = 64 << 20

        package init() {}
    }

    private let bytes: [UInt8]
    private let limits: Limits

    package init(_ bytes: [UInt8], limits: Limits = Limits()) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Whether `bytes` start as a zip archive does (a local file header).
    package static func looksLikeZip(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
    }

    /// Every entry whose name `matches` picks, in the directory's order,
    /// each within the entry bounds, at most `maximumEntriesRead` of them
    /// and `maximumTotalSize` bytes together (counted from what the
    /// directory declares, before anything is inflated).
    package func contents(ofEntriesWhere matches: (String) -> Bool) throws(CompressionError) -> [(name: String, contents: [UInt8])] {
        let directory = try centralDirectory()
        let chosen = try entries(of: directory).filter { matches($0.name) }
        guard chosen.count <= limits.maximumEntriesRead else {
            throw CompressionError("has more than \(limits.maximumEntriesRead) entries to read")
        }
        guard chosen.reduce(0, { $0 + $1.size }) <= limits.maximumTotalSize else {
            throw CompressionError("holds more than \(limits.maximumTotalSize) bytes to read")
        }
        var contents: [(name: String, contents: [UInt8])] = []
        for entry in chosen { contents.append((entry.name, try read(entry, dataEnd: directory.offset))) }
        return contents
    }

    private func entries(of directory: (offset: Int, size: Int, count: Int)) throws(CompressionError) -> [Entry] {
        var entries: [Entry] = []
        var offset = directory.offset
        for _ in 0..<directory.count {
            entries.append(try entry(at: &offset, directoryEnd: directory.offset + directory.size))
        }
        return entries
    }

    private struct Entry {
        let name: String
        let flags: UInt16
        let method: UInt16
        let crc: UInt32
        let compressedSize: Int
        let size: Int
        let localHeader: Int
    }

    private func centralDirectory() throws(CompressionError) -> (offset: Int, size: Int, count: Int) {
        // The end record is 22 bytes plus a comment of at most 65,535.
        let earliest = max(0, bytes.count - 22 - 0xFFFF)
        var position = bytes.count - 22
        while position >= earliest, !(signature(at: position, 0x0605_4B50)) { position -= 1 }
        guard position >= earliest else { throw CompressionError("has no zip end of central directory record") }
        guard u16(position + 4) == 0, u16(position + 6) == 0 else { throw CompressionError("is a split zip archive") }
        let count = Int(u16(position + 10))
        let size = Int(u32(position + 12))
        let offset = Int(u32(position + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF { throw CompressionError("is a zip64 archive") }
        guard count <= limits.maximumEntries else { throw CompressionError("lists more than \(limits.maximumEntries) entries") }
        guard offset <= position, size <= position - offset else { throw CompressionError("has a central directory outside the archive") }
        return (offset, size, count)
    }

    private func entry(at offset: inout Int, directoryEnd: Int) throws(CompressionError) -> Entry {
        guard offset + 46 <= directoryEnd, signature(at: offset, 0x0201_4B50) else {
            throw CompressionError("has a malformed central directory")
        }
        let nameLength = Int(u16(offset + 28))
        let extraLength = Int(u16(offset + 30))
        let commentLength = Int(u16(offset + 32))
        let next = offset + 46 + nameLength + extraLength + commentLength
        guard next <= directoryEnd else { throw CompressionError("has a malformed central directory") }
        let entry = Entry(
            name: String(decoding: bytes[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self),
            flags: u16(offset + 8),
            method: u16(offset + 10),
            crc: u32(offset + 16),
            compressedSize: Int(u32(offset + 20)),
            size: Int(u32(offset + 24)),
            localHeader: Int(u32(offset + 42))
        )
        offset = next
        return entry
    }

    private func read(_ entry: Entry, dataEnd: Int) throws(CompressionError) -> [UInt8] {
        if entry.flags & 0x1 != 0 { throw CompressionError("\(entry.name) is encrypted") }
        if entry.size == 0xFFFF_FFFF || entry.compressedSize == 0xFFFF_FFFF { throw CompressionError("\(entry.name) is a zip64 entry") }
        guard entry.size <= limits.maximumEntrySize else {
            throw CompressionError("\(entry.name) is larger than \(limits.maximumEntrySize) bytes")
        }
        guard entry.size <= max(entry.compressedSize, 1) * limits.maximumRatio else {
            throw CompressionError("\(entry.name) expands more than \(limits.maximumRatio) times")
        }
        let header = entry.localHeader
        guard header + 30 <= dataEnd, signature(at: header, 0x0403_4B50) else {
            throw CompressionError("\(entry.name) has no local header where the directory says")
        }
        let start = header + 30 + Int(u16(header + 26)) + Int(u16(header + 28))
        guard start <= dataEnd, entry.compressedSize <= dataEnd - start else {
            throw CompressionError("\(entry.name) runs past the end of its data")
        }
        let data = bytes[start..<(start + entry.compressedSize)]
        let contents: [UInt8]
        switch entry.method {
        case 0: contents = Array(data)
        case 8: contents = try RawInflate.inflate(data, limit: entry.size)
        default: throw CompressionError("\(entry.name) is compressed with a method other than DEFLATE")
        }
        guard contents.count == entry.size, RawInflate.crc32(contents) == entry.crc else {
            throw CompressionError("\(entry.name) does not match its recorded size and checksum")
        }
        return contents
    }

    private func signature(at offset: Int, _ value: UInt32) -> Bool {
        offset >= 0 && offset + 4 <= bytes.count && u32(offset) == value
    }

    private func u16(_ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private func u32(_ offset: Int) -> UInt32 {
        UInt32(u16(offset)) | UInt32(u16(offset + 2)) << 16
    }
}
