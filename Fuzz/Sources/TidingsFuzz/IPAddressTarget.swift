import TidingsHTTPClient

/// Address literals in target URLs, checked by the SSRF guard. Any text is
/// an address or nil; an address prints in a form that reads back as itself.
enum IPAddressTarget {
    static func run(_ input: FuzzInput) {
        let text = input.string
        guard let address = IPAddress(text) else { return }
        let printed = address.description
        check(IPAddress(printed) == address, "\(text.debugDescription) -> \(printed)")
        if let other = IPAddress(bytes: address.bytes) {
            check(other == address, "bytes of \(printed)")
        }
    }
}
