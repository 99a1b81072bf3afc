#if canImport(Glibc)
import Glibc
#endif

// How this binary starts. The module is built as a library
// (-parse-as-library, no main.swift or @main); its LLVMFuzzerTestOneInput
// is the @_cdecl function in FuzzEntry.swift. SwiftPM links every
// executable with `main` pointing at `<module>_main`, which this file
// defines: it hands the command line to libFuzzer's driver, which then
// behaves exactly like a stand-alone fuzzer (`TidingsFuzz corpus/
// -max_total_time=60`, or `TidingsFuzz crash-file` to replay one input).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("TidingsFuzz_main")
package func fuzzMain(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    _ = selectedTarget
    var argumentCount = argc
    var arguments = argv
    // A closure: passing the @_cdecl function itself would emit a second
    // C symbol of its name here.
    return LLVMFuzzerRunDriver(&argumentCount, &arguments) { data, size in fuzzTestOneInput(data, size) }
}
