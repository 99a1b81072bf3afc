import Foundation

/// Compressed bodies for the decoding tests, kept as constants or built from
/// a few fixed bytes so the tests need no compression library (no Swift
/// module for zlib, brotli or zstd here) and no child process (spawning one
/// from a busy multi-threaded test process is fragile). The samples are
/// `sampleText` compressed with the CLIs of Debian's gzip, brotli and zstd
/// packages:
///   gzip -9 -n | base64 -w0
///   brotli -q 11 -c | base64 -w0
///   zstd -19 -q -c --no-check | base64 -w0
enum EncodedBodies {
    /// What every sample decodes to: 5,890 bytes of HTML-ish text.
    static let sampleText = (0..<100).map { "<li>Item \($0): Tidings decodes gzip, br and zstd bodies.</li>" }.joined()

    static let gzipSample = decode(
        "H4sIAAAAAAACA6XYzU0DMRCA0Va2AAT430YRd+40QNgoWgkSRHJK9XChAJ4L+G5PnvHsPrbnl+vhc3l8Wl63dTsdL8t6"
            + "eD+vh8tyvG1fd8v+e3k7rcvtcl2X/XndDpf73cNvtfsrA5eRy8Rl5rJwWblsXHYuh0uYQOSKgjMK7ig4pOCSglMKbik4"
            + "puCaomuKE2+Sa4quKbqm6Jqia4quKbqm6JqSa0quKU2MONeUXFNyTck1JdeUXFNyTdk1ZdeUXVOe2JhcU3ZN2TVl15Rd"
            + "U3ZNxTUV11RcU3FNZWIBd03FNRXXVFxTcU3VNVXXVF1TdU3VNdWJ/5xrqq6puqbqmppraq6puabmmppraq6pTZwHXFNz"
            + "Tc01ddfUXVN3Td01ddfUXVN3TX3i2uSaumsarmm4puGahmsarmm4puGahmsaE8fLf2v6AZHiwYQCFwAA"
    )
    static let brSample = decode(
        "HwEX8I3UWi0270aodKOuke74VX4JPUgXnRuMzStlUQwPwDp891BSGMGCUS9IQoePLfalUvEWj3rpl3P60A/fP6e03ATt"
            + "i+bskb6/R3v1y/Cxgu9LpZFGGW2MscYZb4KJVzLjCCAiIaOgRoPWXKQKAREJGQU1GrTmIl0IiEjIKKjRoDUXmUJAREJG"
            + "QY0GrbnIFgIiEjIKajRozUWuEBCRkFFQo0FrLvKFgIiEjIIaDVpzUSgERCRkFNRo0JqLYiEgIiGjoEaDdvQA"
    )
    static let zstdSample = decode(
        "KLUv/QBofQYAcksgGWBN8lBg6WBrCBcDBQpfjF1ShJRQEAgAEDzNq4lnRf3m1cSzIn7zauJZ0b55NfGsSN+8mnhWlG9e"
            + "TTwrwjevJp4V3ZtXE8+K7M2riWdF9T5/r8/j7/YqHIaAEFiUYx6JG8kyuXEgHkkcADmTxRfFPBSK+bJwHHMOH9AbisRQ"
            + "OAxCZKgRUNv1/w3gNwMSWEHg/38Ff/33/+7v//7fffvf/7u///2/+/a//3ff/vf/7tv//t/9/e//3bf//b8jvs9er9fr" + "9Xrt7uzaAakK"
    )

    /// A gzip stream of zeros that inflates to 1,032 bytes per body byte:
    /// the first 24 bytes of `head -c 1G /dev/zero | gzip -9 -n` and then
    /// `zeroBytes` zeros (in that stream each zero byte codes 1,032 zeros,
    /// and a decoder reads on until the body ends). No trailer: a decoder
    /// past the cap never gets there.
    static func gzipZeros(zeroBytes: Int) -> [UInt8] {
        hex("1f8b0800000000000203ecc101010000008090feafee080a") + [UInt8](repeating: 0, count: zeroBytes)
    }

    /// The same deflate data as `gzipZeros` in a zlib stream (what HTTP's
    /// `deflate` encoding is): the zlib header `78da` instead of gzip's.
    static func deflateZeros(zeroBytes: Int) -> [UInt8] {
        hex("78daecc101010000008090feafee080a") + [UInt8](repeating: 0, count: zeroBytes)
    }

    /// A brotli stream that never ends, 64 MiB of zeros per 52 bytes: what
    /// Python's `brotli.Compressor(quality=5, lgwin=24)` writes for
    /// 64 MiB of zeros followed by `flush()`, first the opening block, then
    /// the steady one it writes the same for every further 64 MiB.
    static func brZeros(blocks: Int) -> [UInt8] {
        let opening = hex("cfffff7f002400e2b14072effff9ffff0f8004401c1680eefd3fffffff01900088c302d0bdffe7ffff3f001200715800baf7ff")
        let steady = hex("fcffff074002200e0b40f7fe9fffffff004800c46101e8defff3ffff1f000980382c00ddfb7ffeffff032001108705a07bff6f00")
        return opening + Array([[UInt8]](repeating: steady, count: blocks).joined())
    }

    /// A zstd frame of `blocks` RLE blocks of 128 KiB zeros (4 bytes each)
    /// after the 18-byte start of `head -c 1G /dev/zero | zstd -19 --no-check`,
    /// closed by an empty last block: 8,192 blocks are 32 KiB that decode
    /// to 1 GiB.
    static func zstdZeros(blocks: Int) -> [UInt8] {
        let rleBlock: [UInt8] = [0x02, 0x00, 0x10, 0x00]
        return hex("28b52ffd00684c000008000100fcff391002") + Array([[UInt8]](repeating: rleBlock, count: blocks).joined())
            + [0x01, 0x00, 0x00]
    }

    /// `head -c 1073741824 /dev/zero | brotli -q 11 -c`: 841 bytes that decode to 1 GiB.
    static let brGibibyteOfZeros = decode(
        "z///f/gnAOKxQCD3/p/////wTwDEYQGA7v0/////4Z8AiMMiAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//"
            + "D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8A"
            + "iMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgA"
            + "oHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//"
            + "+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////"
            + "4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMA"
            + "cVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsA"
            + "dO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/"
            + "////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8/"
            + "/BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIg"
            + "DgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA"
            + "7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n" + "//8//BMAcVgAoHv/Pw=="
    )

    private static func decode(_ base64: String) -> [UInt8] {
        [UInt8](Data(base64Encoded: base64)!)
    }

    private static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
        }
    }
}
