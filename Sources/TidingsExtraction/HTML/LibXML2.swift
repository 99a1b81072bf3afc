internal import CLibXML2

/// Process-wide libxml2 set-up, and the error sink that keeps its messages
/// off stderr (callers report failures as `ExtractionError` instead).
enum LibXML2 {
    private static let initialized: Void = {
        xmlInitParser()
        // libxml2's error handler is per thread; this is the default that
        // threads created from now on start with.
        xmlThrDefSetStructuredErrorFunc(nil) { _, _ in }
        CLibXML2_discard_generic_errors_by_default()
    }()

    /// Call before using libxml2 on the current thread: the parser options
    /// silence parse errors, but encoding, I/O and some XPath errors still go
    /// through the thread's global handlers, which print by default.
    static func prepareCurrentThread() {
        _ = initialized
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        CLibXML2_discard_generic_errors()
    }
}
