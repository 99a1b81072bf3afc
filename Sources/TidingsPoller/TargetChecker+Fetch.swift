import FoundationEssentials
import TidingsDomain
import TidingsHTTPClient

extension TargetChecker {
    enum Fetch {
        case response(HTTPClientResponse, retryAfter: Duration?)
        case failure(HTTPClientError)
        /// The host asked (Retry-After) for nothing before this long from now.
        case held(Duration)
        case abandoned
    }

    /// One GET, following redirects here rather than in libcurl so that
    /// every hop is its own request:
    /// - it takes a slot of the host limiter for its own site and port
    ///   (`HTTPOrigin.siteAndPort`), so redirectors, and names made up
    ///   under one domain, cannot multiply the requests one server
    ///   receives;
    /// - request headers (often credentials) go only to their own origin
    ///   (`OriginHeaders`: the watch's to the watch URL's, the version
    ///   endpoint's to the version URL's): never to another host, another
    ///   port, or from https down to http (libcurl would drop only
    ///   Authorization and Cookie);
    /// - it waits for that slot in the turn of the target's tenant
    ///   (`ClaimedTarget.tenant`), so one user's many targets on a popular
    ///   site take turns with other users' instead of filling its queue;
    /// - a 429 or 503 with Retry-After closes the host that sent it (host
    ///   and port, not its whole site) for that long, capped at
    ///   `TIDINGS_MAX_RETRY_AFTER`, for every target on that host.
    /// The response carries the bytes and time of every hop.
    ///
    /// `headers` are the target's, already opened (`TargetChecker.check`).
    func fetch(_ url: String, target: ClaimedTarget, headers: [OriginHeaders], conditional: Bool) async -> Fetch {
        var hopURL = url
        var hops = 0
        var earlier: (bytes: Int, headerBytes: Int, duration: Duration) = (0, 0, .zero)
        while true {
            guard let origin = HTTPOrigin(url: hopURL) else {
                return .failure(HTTPClientError(code: .invalidURL, message: "not an http(s) URL with a host"))
            }
            let site = origin.siteAndPort
            let host = "\(origin.host):\(origin.port)"
            switch await limiter.acquire(site: site, host: host, user: target.tenant) {
            case .granted: break
            case .closed: return .abandoned
            case .held(let until): return .held(ContinuousClock.now.duration(to: until))
            }
            var request = HTTPClientRequest(url: hopURL)
            request.followRedirects = false
            request.headers = OriginHeaders.headers(for: origin, in: headers)
            if conditional {
                if let etag = target.etag { request.headers.append((name: "If-None-Match", value: etag)) }
                if let lastModified = target.lastModified { request.headers.append((name: "If-Modified-Since", value: lastModified)) }
            }
            var response: HTTPClientResponse
            do {
                response = try await client.execute(request)
                limiter.release(site: site)
            } catch {
                limiter.release(site: site)
                return error.code == .shutdown || error.code == .cancelled ? .abandoned : .failure(error)
            }
            response.bytesReceived += earlier.bytes
            response.headerBytesReceived += earlier.headerBytes
            response.duration += earlier.duration
            response.redirectCount = hops

            if RedirectLocation.statuses.contains(response.status), let location = response.header("Location") {
                guard hops < client.configuration.maxRedirects else {
                    return .failure(HTTPClientError(code: .tooManyRedirects, message: "stopped after \(hops) redirects"))
                }
                guard let next = RedirectLocation.resolve(location, against: hopURL) else {
                    return .failure(HTTPClientError(code: .invalidURL, message: "the redirect's Location is not an http(s) URL"))
                }
                earlier = (response.bytesReceived, response.headerBytesReceived, response.duration)
                hops += 1
                hopURL = next
                continue
            }

            var retryAfter: Duration?
            if response.status == 429 || response.status == 503, let value = response.header("Retry-After") {
                retryAfter = RetryAfter.delay(from: value, now: Date(), atMost: min(configuration.maximumBackoff, limiter.longestHold))
            }
            if let retryAfter {
                limiter.hold(host: host, for: retryAfter)
            }
            return .response(response, retryAfter: retryAfter)
        }
    }
}
