import TidingsDomain

/// Watch and webhook URLs from API clients. A normalized URL is at most the
/// maximum length, http or https, and normalizing it again changes nothing.
enum URLNormalizerTarget {
    static func run(_ input: FuzzInput) {
        let text = input.string
        guard let url = try? URLNormalizer.normalize(text) else { return }
        check(url.text.utf8.count <= URLNormalizer.maximumLength, "too long: \(url.text)")
        check(url.scheme == "http" || url.scheme == "https", "scheme of \(url.text)")
        check(url.text.hasPrefix("\(url.scheme)://\(url.host)"), "\(url.text) does not start with its scheme and host")
        do {
            let again = try URLNormalizer.normalize(url.text)
            check(again == url, "\(text.debugDescription) -> \(url.text) -> \(again.text)")
        } catch {
            check(false, "\(text.debugDescription) -> \(url.text), which does not normalize: \(error)")
        }
    }
}
