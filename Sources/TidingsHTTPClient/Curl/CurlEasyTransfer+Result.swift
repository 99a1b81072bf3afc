internal import CCurl
internal import CTidingsShims

extension CurlEasyTransfer {
    /// Turns libcurl's outcome into a response or an error with a clear message.
    func result(for code: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        // A truncating request's snippet filled up: the write callback ended
        // the transfer on purpose, and what arrived is the answer.
        let snippetFilled = code == CURLE_WRITE_ERROR && truncatedBody
        guard code == CURLE_OK || snippetFilled else { return .failure(error(for: code)) }
        return .success(
            HTTPClientResponse(
                status: longInfo(CURLINFO_RESPONSE_CODE),
                headers: headers,
                body: body,
                effectiveURL: stringInfo(CURLINFO_EFFECTIVE_URL) ?? "",
                redirectCount: longInfo(CURLINFO_REDIRECT_COUNT),
                duration: .microseconds(offsetInfo(CURLINFO_TOTAL_TIME_T)),
                remoteAddress: stringInfo(CURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 },
                bytesReceived: offsetInfo(CURLINFO_SIZE_DOWNLOAD_T),
                headerBytesReceived: longInfo(CURLINFO_HEADER_SIZE),
                isBodyTruncated: truncatedBody
            ))
    }

    private func error(for code: CURLcode) -> HTTPClientError {
        switch code {
        case CURLE_WRITE_ERROR where exceededResponseSize, CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: maxResponseSize)
        case CURLE_COULDNT_CONNECT where connectRefusal != nil:
            return connectRefusal!
        case CURLE_OPERATION_TIMEDOUT:
            let connected = offsetInfo(CURLINFO_CONNECT_TIME_T) > 0
            return .timedOut(after: connected ? timeout : min(timeout, connectTimeout), whileConnecting: !connected)
        case CURLE_TOO_MANY_REDIRECTS:
            return HTTPClientError(
                code: .tooManyRedirects,
                message: "stopped after \(longInfo(CURLINFO_REDIRECT_COUNT)) redirects"
            )
        case CURLE_UNSUPPORTED_PROTOCOL where !(300..<400).contains(longInfo(CURLINFO_RESPONSE_CODE)):
            // Every URL handed to libcurl is http or https (`validate`), and
            // only a redirect can lead elsewhere; without one, libcurl says
            // this of a status line it cannot take (out of range, HTTP/0.9).
            return HTTPClientError(code: .malformedResponse, message: curlMessage(for: code))
        case CURLE_WEIRD_SERVER_REPLY:
            return HTTPClientError(code: .malformedResponse, message: curlMessage(for: code))
        default:
            return HTTPClientError(code: Self.errorCode(for: code), message: curlMessage(for: code))
        }
    }

    private static func errorCode(for code: CURLcode) -> HTTPClientError.Code {
        switch code {
        case CURLE_URL_MALFORMAT:
            return .invalidURL
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .unsupportedScheme
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dnsFailure
        case CURLE_COULDNT_CONNECT:
            return .connectionFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return .tlsFailure
        default:
            return .transport
        }
    }

    /// libcurl's specific text when it wrote one, else the generic one.
    private func curlMessage(for code: CURLcode) -> String {
        let text = errorText
        return text.isEmpty ? String(cString: curl_easy_strerror(code)) : text
    }

    private func longInfo(_ info: CURLINFO) -> Int {
        var value = 0
        return CTidingsShims_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }

    private func offsetInfo(_ info: CURLINFO) -> Int {
        var value: curl_off_t = 0
        return CTidingsShims_curl_easy_getinfo_off_t(handle, info, &value) == CURLE_OK ? Int(value) : 0
    }

    private func stringInfo(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard CTidingsShims_curl_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}
