import TidingsIP

extension HTTPClientError {
    static func blockedAddress(_ address: IPAddress, _ refusal: SSRFGuard.Refusal) -> HTTPClientError {
        HTTPClientError(
            code: .blockedAddress,
            message: "address \(address) is in a \(refusal.reason) range (\(refusal.range)); "
                + "set TIDINGS_ALLOW_PRIVATE_TARGETS=true to allow it"
        )
    }

    static func responseTooLarge(limit: Int) -> HTTPClientError {
        HTTPClientError(code: .responseTooLarge, message: "response exceeded \(limit) bytes")
    }

    static func timedOut(after limit: Duration, whileConnecting: Bool) -> HTTPClientError {
        let phase = whileConnecting ? " while connecting" : ""
        return HTTPClientError(code: .timeout, message: "timed out after \(limit.shortDescription)\(phase)")
    }

    static let shutdown = HTTPClientError(code: .shutdown, message: "the HTTP client was shut down")

    static let cancelled = HTTPClientError(code: .cancelled, message: "the request was cancelled")
}
