internal import CCrypto

/// Comparisons whose duration does not depend on where inputs differ, for
/// secrets and signatures (a plain `==` leaks how many leading bytes match).
package enum ConstantTime {
    package static func isEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }
}
