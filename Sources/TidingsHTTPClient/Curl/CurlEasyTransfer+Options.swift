internal import CCurl
internal import CTidingsShims
import TidingsSynchronization

extension CurlEasyTransfer {
    /// Sets every option of the handle. libcurl copies strings (and the body,
    /// through COPYPOSTFIELDS); only the header list and error buffer must
    /// outlive the transfer, and they are freed in deinit.
    func configure(request: HTTPClientRequest, configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        try set(CURLOPT_URL, request.url)
        // Only http and https, including on every redirect hop.
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // A proxy from the environment would hide the real target from the SSRF guard.
        try set(CURLOPT_PROXY, "")
        try set(CURLOPT_NOSIGNAL, 1)
        // HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise.
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        if configuration.http2Multiplexing != nil {
            // Wait for the connection being set up rather than open another.
            try set(CURLOPT_PIPEWAIT, 1)
        }
        try configureTLS(configuration)
        // At least 1 ms: libcurl reads 0 as "no timeout".
        try set(CURLOPT_CONNECTTIMEOUT_MS, max(Int(clamping: connectTimeout.roundedUpMilliseconds), 1))
        try set(CURLOPT_TIMEOUT_MS, max(Int(clamping: timeout.roundedUpMilliseconds), 1))
        // A name whose DNS server does not answer outlives the connect
        // timeout in libcurl's resolver thread, and removing the transfer
        // then joined that thread: the driver, and every transfer on it (all
        // tenants' checks or deliveries), stood still for the resolver's
        // whole timeout (5 s per try). With this the thread is forgotten and
        // frees itself when the lookup ends.
        try set(CURLOPT_QUICK_EXIT, 1)
        try set(CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        // Never negative: libcurl reads -1 as "unlimited".
        try set(CURLOPT_MAXREDIRS, max(configuration.maxRedirects, 0))
        // Empty means every encoding this libcurl can decode (gzip, br, zstd);
        // unset (libcurl's default), none is asked for or decoded. A request
        // that keeps only a snippet asks for none: decoding a bomb to keep
        // 16 KiB of it would be work nothing reads.
        if !request.truncatesResponseBody {
            try set(CURLOPT_ACCEPT_ENCODING, "")
        }
        // Refuses early when Content-Length is known; the write callback
        // enforces the limit on decoded bytes in every case.
        // (0 is "no limit": a truncating request takes any length and keeps the start.)
        let fileSizeLimit = truncatesResponseBody ? 0 : max(maxResponseSize, 0)
        try check(CTidingsShims_curl_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(fileSizeLimit)))
        try set(CURLOPT_USERAGENT, configuration.userAgent)
        try check(CTidingsShims_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(CTidingsShims_curl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, Unmanaged.passUnretained(self).toOpaque()))
        try installCallbacks()
        try configureMethodAndBody(request)
        try configureHeaders(request)
    }

    /// Certificates are always verified (libcurl's defaults, set anyway so
    /// that nothing can turn them off by accident), against the extra CA
    /// file when one is configured.
    private func configureTLS(_ configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let file = configuration.extraCAFile {
            try set(CURLOPT_CAINFO, file)
        }
    }

    private func configureMethodAndBody(_ request: HTTPClientRequest) throws(HTTPClientError) {
        let method = request.method.uppercased()
        if method == "HEAD" {
            try set(CURLOPT_NOBODY, 1)
            return
        }
        if let body = request.body {
            try check(CTidingsShims_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            let code =
                body.isEmpty
                ? CTidingsShims_curl_easy_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                : body.withUnsafeBytes { bytes in
                    CTidingsShims_curl_easy_setopt_pointer(
                        handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            try check(code)
        } else if method == "POST" {
            try set(CURLOPT_POSTFIELDSIZE, 0)
            try set(CURLOPT_COPYPOSTFIELDS, "")
        }
        if method != "GET" && method != "POST" {
            try set(CURLOPT_CUSTOMREQUEST, request.method)
        } else if method == "GET" && request.body != nil {
            try set(CURLOPT_CUSTOMREQUEST, "GET")
        }
    }

    private func configureHeaders(_ request: HTTPClientRequest) throws(HTTPClientError) {
        var lines = request.headers.map { header in
            // "Name:" would make libcurl drop the header; "Name;" sends it empty.
            header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
        }
        let setsExpect = request.headers.contains { $0.name.lowercased() == "expect" }
        if request.body != nil && !setsExpect {
            // No "Expect: 100-continue" round trip: many servers ignore it and
            // libcurl would wait a second before sending the body anyway.
            lines.append("Expect:")
        }
        for line in lines {
            guard let extended = curl_slist_append(headerList, line) else {
                throw HTTPClientError(code: .transport, message: "out of memory while building request headers")
            }
            headerList = extended
        }
        if let headerList {
            try check(CTidingsShims_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
        }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPClientError) {
        try check(CTidingsShims_curl_easy_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTPClientError) {
        try check(CTidingsShims_curl_easy_setopt_string(handle, option, value))
    }

    func check(_ code: CURLcode) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            let errorCode: HTTPClientError.Code = code == CURLE_URL_MALFORMAT ? .invalidURL : .transport
            throw HTTPClientError(code: errorCode, message: "could not configure the transfer: \(reason)")
        }
    }
}
