import TidingsDomain
import TidingsHTTPClient

/// Watch and webhook URLs from API clients. A normalized URL is at most the
/// maximum length, http or https, and normalizing it again changes nothing.
/// The poller's `HTTPOrigin` reads the same authority from it (decision
/// 0053: the two parsers stay two, and agree on every normalized URL).
enum URLNormalizerTarget {
    static func run(_ input: FuzzInput) {
        let text = input.string
        guard let url = try? URLNormalizer.normalize(text) else { return }
        check(url.text.utf8.count <= URLNormalizer.maximumLength, "too long: \(url.text)")
        check(url.scheme == "http" || url.scheme == "https", "scheme of \(url.text)")
        check(url.text.hasPrefix("\(url.scheme)://\(url.host)"), "\(url.text) does not start with its scheme and host")
        if let origin = HTTPOrigin(url: url.text) {
            var host = Substring(url.host)
            while host.last == "." { host = host.dropLast() }
            check(origin.scheme == url.scheme, "\(url.text): origin scheme \(origin.scheme)")
            check(origin.host == host, "\(url.text): origin host \(origin.host)")
            check(origin.port == url.port ?? (url.scheme == "https" ? 443 : 80), "\(url.text): origin port \(origin.port)")
        } else {
            check(url.host.allSatisfy { $0 == "." }, "\(url.text) has no HTTPOrigin")
        }
        do {
            let again = try URLNormalizer.normalize(url.text)
            check(again == url, "\(text.debugDescription) -> \(url.text) -> \(again.text)")
        } catch {
            check(false, "\(text.debugDescription) -> \(url.text), which does not normalize: \(error)")
        }
    }
}
