#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer's entry point. One binary holds every target; the
/// environment variable TIDINGS_FUZZ_TARGET names the one to run
/// (scripts/fuzz.sh sets it). A target returns normally for any input and
/// calls `check` for the properties it holds the code to: a failed check
/// aborts, which libFuzzer reports as a crash and saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)))
    selectedTarget.run(input)
    return 0
}

struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable (FuzzInput) -> Void
}

/// Every target, by the name used for TIDINGS_FUZZ_TARGET and Fuzz/corpus/<name>.
let fuzzTargets: [FuzzTarget] = [
    FuzzTarget(name: "retry-after", run: RetryAfterTarget.run),
    FuzzTarget(name: "cache-lifetime", run: CacheLifetimeTarget.run),
    FuzzTarget(name: "page-cursor", run: PageCursorTarget.run),
    FuzzTarget(name: "config-values", run: ConfigValuesTarget.run),
    FuzzTarget(name: "url-normalizer", run: URLNormalizerTarget.run),
    FuzzTarget(name: "css-selector", run: CSSSelectorTarget.run),
    FuzzTarget(name: "json-pointer", run: JSONPointerTarget.run),
    FuzzTarget(name: "json-value", run: JSONValueTarget.run),
    FuzzTarget(name: "json-writer", run: JSONWriterTarget.run),
    FuzzTarget(name: "request-headers", run: RequestHeadersTarget.run),
    FuzzTarget(name: "line-diff", run: LineDiffTarget.run),
    FuzzTarget(name: "postgres-timestamp", run: PostgresTimestampTarget.run),
    FuzzTarget(name: "rfc3339", run: RFC3339Target.run),
    FuzzTarget(name: "ip-address", run: IPAddressTarget.run),
    FuzzTarget(name: "page-content", run: PageContentTarget.run),
    FuzzTarget(name: "redirect-location", run: RedirectLocationTarget.run),
    FuzzTarget(name: "http-origin", run: HTTPOriginTarget.run),
    FuzzTarget(name: "ignore-patterns", run: IgnorePatternsTarget.run),
    FuzzTarget(name: "json-duplicate-members", run: JSONDuplicateMembersTarget.run),
    FuzzTarget(name: "push-answers", run: PushAnswersTarget.run),
    FuzzTarget(name: "trusted-proxies", run: TrustedProxiesTarget.run),
    FuzzTarget(name: "request-framing", run: RequestFramingTarget.run),
    FuzzTarget(name: "webpush-crypto", run: WebPushCryptoTarget.run),
    FuzzTarget(name: "stream-request", run: StreamRequestTarget.run),
    FuzzTarget(name: "webpush-subscription", run: WebPushSubscriptionTarget.run),
    FuzzTarget(name: "import-urlwatch", run: ImportURLWatchTarget.run),
    FuzzTarget(name: "import-changedetection", run: ImportChangedetectionTarget.run),
    FuzzTarget(name: "import-opml", run: ImportOPMLTarget.run),
]

let selectedTarget: FuzzTarget = {
    let names = fuzzTargets.map(\.name).joined(separator: " ")
    guard let pointer = getenv("TIDINGS_FUZZ_TARGET") else {
        printError("set TIDINGS_FUZZ_TARGET to one of: \(names)")
        exit(2)
    }
    let name = String(cString: pointer)
    guard let target = fuzzTargets.first(where: { $0.name == name }) else {
        printError("unknown fuzz target \"\(name)\"; targets: \(names)")
        exit(2)
    }
    return target
}()

/// A failed property: prints what was expected and aborts, so libFuzzer
/// keeps the input as a crash.
func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    printError("\(file):\(line): property failed: \(message())")
    abort()
}

/// The fuzzer's bytes, with the few ways targets read them.
struct FuzzInput {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The bytes as text; invalid UTF-8 is repaired (every parser here
    /// receives Swift strings).
    var string: String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The first byte (to choose a mode) and the text after it.
    var selectorAndString: (UInt8, String) {
        guard let first = bytes.first else { return (0, "") }
        return (first, String(decoding: bytes.dropFirst(), as: UTF8.self))
    }

    /// The text split at NUL bytes: several strings from one input.
    func strings(separatedBy separator: UInt8 = 0) -> [String] {
        bytes.split(separator: separator, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// An Int64 from the first eight bytes (little-endian, zero-padded).
    var int64Prefix: Int64 {
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() {
            value |= UInt64(byte) << (8 * UInt64(index))
        }
        return Int64(bitPattern: value)
    }
}

/// A line on standard error (file descriptor 2: the C `stderr` global is
/// not concurrency-safe in Swift 6).
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
