internal import CCurl
internal import CTidingsShims

/// libcurl's process-wide setup. curl_global_init must run once before any
/// other libcurl call and never concurrently with one; a Swift global is
/// initialised exactly once, thread-safely, on first use. It is never undone:
/// curl_global_cleanup would race with other clients in the process.
enum CurlGlobal {
    private static let initialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    static func ensureInitialized() throws(HTTPClientError) {
        guard initialization == CURLE_OK else {
            throw HTTPClientError(
                code: .transport,
                message: "libcurl initialisation failed: \(String(cString: curl_easy_strerror(initialization)))"
            )
        }
    }
}
