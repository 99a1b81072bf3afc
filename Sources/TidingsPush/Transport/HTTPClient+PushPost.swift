import TidingsHTTPClient

extension HTTPClient {
    /// Posts one push the way every push service is spoken to: within
    /// `timeout`, no redirects, at most `PushAnswerBody.maximumSize` of the
    /// answer kept. A request that got no answer ends as its transport
    /// `PushResult`; an answer is read by `read`. When that says the
    /// credential was refused, `retryWithNewCredential` may replace it and
    /// send once more (it answers whether it did); otherwise the reading's
    /// fallback outcome ends the push. `completion` runs once, on the
    /// driver thread.
    func postPush(
        url: String,
        headers: [(String, String)],
        body: [UInt8],
        timeout: Duration,
        service: String,
        read: @escaping @Sendable (HTTPClientResponse) -> PushAnswerReading,
        retryWithNewCredential: @escaping @Sendable () -> Bool,
        completion: @escaping @Sendable (PushResult) -> Void
    ) {
        var request = HTTPClientRequest(url: url, method: "POST", headers: headers, body: body)
        request.timeout = timeout
        request.followRedirects = false
        request.maxResponseSize = PushAnswerBody.maximumSize
        request.truncatesResponseBody = true
        execute(request) { result in
            switch result {
            case .failure(let error):
                completion(PushResult(transportError: error, service: service))
            case .success(let response):
                switch read(response) {
                case .result(let outcome):
                    completion(outcome)
                case .credentialRejected(let ifRepeated):
                    if !retryWithNewCredential() { completion(ifRepeated) }
                }
            }
        }
    }
}
