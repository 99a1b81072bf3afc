/// Compact JSON Web Tokens (RFC 7519) signed with a `SigningKey`. The
/// caller writes the header and claims JSON (TidingsJSON); this only joins
/// and signs: base64url(header) . base64url(claims) . base64url(signature).
package enum JSONWebToken {
    package static func compact(headerJSON: [UInt8], claimsJSON: [UInt8], key: SigningKey) throws(SigningKeyError) -> String {
        let signingInput = Base64.encodeURLSafe(headerJSON) + "." + Base64.encodeURLSafe(claimsJSON)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64.encodeURLSafe(signature)
    }
}
