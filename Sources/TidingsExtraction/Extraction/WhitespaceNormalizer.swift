/// Makes layout changes invisible to the hash. Works on UTF-8 bytes, not
/// on `Unicode.Scalar`s: it runs over every full body a check extracts,
/// and scalar properties cost a table lookup per character (a third of
/// the poller's CPU on 20 KB pages, `bench/poller.sh` BENCH_MIX=1).
/// "Whitespace" is Unicode's White_Space property, spelled out in
/// `whitespace(in:at:)`.
package enum WhitespaceNormalizer {
    /// Every run of Unicode whitespace becomes one space, and leading and
    /// trailing whitespace goes: the whole text on one line. What the raw
    /// rule compares (and every rule did before readable text, decision 0027).
    package static func normalize(_ text: String) -> String {
        normalized(text, keepingLineBreaks: false)
    }

    /// Like `normalize` within each line, but line breaks stay: each line
    /// is trimmed, runs of other whitespace become one space, and blank
    /// lines go, so lines are joined by exactly one `\n`. Readable text
    /// (HTML's visible text, plain text) is compared and diffed this way.
    package static func normalizeLines(_ text: String) -> String {
        normalized(text, keepingLineBreaks: true)
    }

    private static func normalized(_ text: String, keepingLineBreaks: Bool) -> String {
        var text = text
        return text.withUTF8 { input in
            // The output is never longer than the input: write it in place
            // of a growing array (a capacity check per byte cost more than
            // the classification).
            String(unsafeUninitializedCapacity: input.count) { output in
                var count = 0
                var pendingSpace = false
                var pendingBreak = false
                var index = 0
                while index < input.count {
                    // Most bytes are printable ASCII, which never starts
                    // whitespace, and most spaces are single ones between
                    // words, which stay as they are: find the run of both
                    // and copy it whole (ending the run at every space
                    // cost more than the rest of the loop on prose).
                    var end = index
                    while end < input.count {
                        if Self.isPlainByte(input[end]) {
                            end += 1
                        } else if input[end] == 0x20, end > index, end + 1 < input.count,
                            Self.isPlainByte(input[end + 1])
                        {
                            end += 2
                        } else {
                            break
                        }
                    }
                    if end == index {
                        if let space = whitespace(in: input, at: index) {
                            index += space.length
                            if space.isLineBreak && keepingLineBreaks {
                                pendingBreak = count > 0
                                pendingSpace = false
                            } else {
                                pendingSpace = count > 0 && !pendingBreak
                            }
                            continue
                        }
                        end = index + 1
                    }
                    if pendingBreak || pendingSpace {
                        output[count] = pendingBreak ? 0x0A : 0x20
                        count += 1
                        pendingBreak = false
                        pendingSpace = false
                    }
                    let run = end - index
                    UnsafeMutableRawPointer(output.baseAddress! + count)
                        .copyMemory(from: input.baseAddress! + index, byteCount: run)
                    count += run
                    index = end
                }
                // Only whole whitespace sequences were left out of valid
                // UTF-8, so the output is valid UTF-8. Each separator
                // written stands for at least one whitespace byte left out,
                // so `count` never passes the input's length.
                return count
            }
        }
    }

    /// A byte that is not whitespace and cannot start it: printable ASCII
    /// and UTF-8 continuation and lead bytes below C2. (Lead bytes above C2
    /// other than E1-E3 cannot either; rare enough not to need a table.)
    @inline(__always)
    private static func isPlainByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0xC2
    }

    /// The White_Space character starting at `index`, if one does: its
    /// length in bytes and whether it breaks a line (LF, VT, FF, CR, NEL,
    /// U+2028, U+2029). The others: tab, space, U+00A0, U+1680,
    /// U+2000-U+200A, U+202F, U+205F, U+3000.
    @inline(__always)
    static func whitespace(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (length: Int, isLineBreak: Bool)? {
        let first = bytes[index]
        switch first {
        case 0x0A...0x0D: return (1, true)
        case 0x09, 0x20: return (1, false)
        case 0xC2, 0xE1, 0xE2, 0xE3: break
        default: return nil
        }
        let remaining = bytes.count - index
        if first == 0xC2 {
            guard remaining >= 2 else { return nil }
            switch bytes[index + 1] {
            case 0x85: return (2, true)
            case 0xA0: return (2, false)
            default: return nil
            }
        }
        guard remaining >= 3 else { return nil }
        let second = bytes[index + 1]
        let third = bytes[index + 2]
        switch (first, second, third) {
        case (0xE1, 0x9A, 0x80): return (3, false) // U+1680
        case (0xE2, 0x80, 0x80...0x8A): return (3, false) // U+2000-U+200A
        case (0xE2, 0x80, 0xA8), (0xE2, 0x80, 0xA9): return (3, true) // U+2028, U+2029
        case (0xE2, 0x80, 0xAF): return (3, false) // U+202F
        case (0xE2, 0x81, 0x9F): return (3, false) // U+205F
        case (0xE3, 0x80, 0x80): return (3, false) // U+3000
        default: return nil
        }
    }
}
