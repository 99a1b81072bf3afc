import Foundation
import Testing
import TidingsCrypto
import TidingsJSON

@Suite struct VAPIDTests {
    static let now: Int64 = 1_750_000_000

    /// The claims JSON a caller writes, with the one JSON writer.
    static func claimsJSON(_ claims: VAPIDClaims) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("aud")
        writer.value(claims.audience)
        writer.key("exp")
        writer.value(claims.expiresAt)
        writer.key("sub")
        writer.value(claims.subject)
        writer.endObject()
        return writer.bytes
    }

    /// `vapid t=<header.claims.signature>, k=<key>` into its parts.
    static func parts(of authorization: String) throws -> (header: String, claims: String, signature: String, key: String) {
        let pattern = try #require(
            authorization.wholeMatch(of: /vapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)/))
        return (String(pattern.1), String(pattern.2), String(pattern.3), String(pattern.4))
    }

    /// The token's signature verifies with the public key of `k=`, by the
    /// openssl command line; the header and claims are what was written.
    @Test func authorizationVerifiesWithItsOwnPublicKey() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try P256KeyPair.generate()
        let claims = try VAPIDClaims(
            audience: "https://fcm.googleapis.com", subject: #"mailto:"ops\team"@example.com"#,
            expiresAt: Self.now + 12 * 3600, now: Self.now)
        let written = Self.claimsJSON(claims)
        let authorization = try VAPID.authorization(claimsJSON: written, key: key)
        let parts = try Self.parts(of: authorization)
        #expect(parts.key == key.publicKeyBase64URL)
        #expect(Base64.decode(parts.header) == Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        #expect(Base64.decode(parts.claims) == written)
        let decoded = try #require(JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        #expect(decoded["sub"] as? String == #"mailto:"ops\team"@example.com"# && decoded["exp"] as? Int == 1_750_043_200)

        let signature = try #require(Base64.decode(parts.signature))
        #expect(signature.count == 64)
        let point = try #require(Base64.decode(parts.key))
        try Data(OpenSSLTool.subjectPublicKeyInfo(p256Point: point)).write(to: directory.appendingPathComponent("k.der"))
        let signed = Array("\(parts.header).\(parts.claims)".utf8)
        #expect(
            try OpenSSLTool.verifies(OpenSSLTool.der(fromJOSE: signature), of: signed, publicKeyFile: "k.der", format: "DER", in: directory)
        )
        #expect(
            try !OpenSSLTool.verifies(
                OpenSSLTool.der(fromJOSE: signature), of: signed + [0x41], publicKeyFile: "k.der", format: "DER",
                in: directory))
        let other = try P256KeyPair.generate()
        try Data(OpenSSLTool.subjectPublicKeyInfo(p256Point: other.publicKeyBytes)).write(to: directory.appendingPathComponent("other.der"))
        #expect(
            try !OpenSSLTool.verifies(
                OpenSSLTool.der(fromJOSE: signature), of: signed, publicKeyFile: "other.der", format: "DER",
                in: directory))
    }

    /// The reference JWT library (PyJWT) verifies the token with the key
    /// of `k=` and reads back the claims, audience and expiry checked.
    @Test(.enabled(if: TestPython.isAvailable, "needs TIDINGS_TEST_PUSH_PYTHON (scripts/run-tests.sh)"))
    func pyJWTVerifiesTheToken() throws {
        let key = try P256KeyPair(base64URLPrivateKey: RFC8291Example.applicationServerPrivateKey)
        let now = Int64(Date().timeIntervalSince1970)
        let claims = try VAPIDClaims(
            audience: "https://updates.push.services.mozilla.com", subject: #"mailto:ops\"@example.com"#,
            expiresAt: now + 24 * 3600, now: now)
        let authorization = try VAPID.authorization(claimsJSON: Self.claimsJSON(claims), key: key)
        let script = """
            import base64, json, sys, jwt
            from cryptography.hazmat.primitives.asymmetric import ec
            header, audience = sys.argv[1], sys.argv[2]
            assert header.startswith('vapid t=')
            token, k = header[len('vapid t='):].split(', k=')
            point = base64.urlsafe_b64decode(k + '=' * (-len(k) % 4))
            key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
            claims = jwt.decode(token, key, algorithms=['ES256'], audience=audience, options={'require': ['aud', 'exp', 'sub']})
            print(json.dumps({'header': jwt.get_unverified_header(token), 'claims': claims}, sort_keys=True))
            """
        let output = try #require(try TestPython.run(script, arguments: [authorization, claims.audience]))
        let read = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: Any]])
        #expect(read["header"]?["alg"] as? String == "ES256" && read["header"]?["typ"] as? String == "JWT")
        #expect(read["claims"]?["aud"] as? String == claims.audience)
        #expect(read["claims"]?["sub"] as? String == claims.subject)
        #expect((read["claims"]?["exp"] as? NSNumber)?.int64Value == claims.expiresAt)
    }

    @Test(arguments: [
        "https://fcm.googleapis.com", "https://updates.push.services.mozilla.com", "https://web.push.apple.com:443",
        "http://127.0.0.1:8080", "https://[::1]:8443", "https://[2001:db8::1]", "https://a-b.example:1",
    ])
    func acceptsOrigins(audience: String) throws {
        #expect(
            try VAPIDClaims(audience: audience, subject: "mailto:ops@example.com", expiresAt: Self.now + 60, now: Self.now).audience
                == audience)
    }

    @Test(arguments: [
        "", "fcm.googleapis.com", "https://", "http://", "https://host/", "https://host/path", "https://host?x=1", "https://host#x",
        "https://user@host", "https://host:", "https://host:0", "https://host:65536", "https://host:123456", "https://host:8a",
        "ftp://host", "HTTPS://host", "https://ho st", "https://host\"", "https://host\n", "https://hôst", "https://[::1",
        "https://[zz::1]", "https://[]", "https://[::1]x", "https://[::1]:", "https://host:443:443",
        "https://" + String(repeating: "a", count: 2000),
    ])
    func refusesWhatIsNotAnOrigin(audience: String) {
        #expect(throws: VAPIDError.audience) {
            try VAPIDClaims(audience: audience, subject: "mailto:ops@example.com", expiresAt: Self.now + 60, now: Self.now)
        }
    }

    @Test func subjects() throws {
        for subject in ["mailto:ops@example.com", "https://example.com/contact", #"mailto:"a\b"@example.com"#] {
            #expect(
                try VAPIDClaims(audience: "https://push.example", subject: subject, expiresAt: Self.now + 1, now: Self.now).subject
                    == subject)
        }
        for subject in [
            "", "mailto:", "https://", "http://example.com", "ops@example.com", "mailto:a b@example.com",
            "mailto:ops@example.com\n", "mailto:\u{0}@x", "mailto:é@example.com", "MAILTO:ops@example.com",
            "mailto:" + String(repeating: "a", count: 2000),
        ] {
            #expect(throws: VAPIDError.subject) {
                try VAPIDClaims(audience: "https://push.example", subject: subject, expiresAt: Self.now + 1, now: Self.now)
            }
        }
    }

    /// At most 24 hours ahead and after now; extreme values are refused,
    /// not trapped on.
    @Test func expiries() throws {
        func claims(_ expiresAt: Int64, now: Int64 = Self.now) throws(VAPIDError) -> VAPIDClaims {
            try VAPIDClaims(audience: "https://push.example", subject: "mailto:ops@example.com", expiresAt: expiresAt, now: now)
        }
        #expect(try claims(Self.now + 86_400).expiresAt == Self.now + 86_400)
        #expect(try claims(Self.now + 1).expiresAt == Self.now + 1)
        #expect(throws: VAPIDError.expiry("must be at most 24 hours ahead")) { try claims(Self.now + 86_401) }
        #expect(throws: VAPIDError.expiry("must be at most 24 hours ahead")) { try claims(.max, now: .min) }
        #expect(throws: VAPIDError.expiry("must be at most 24 hours ahead")) { try claims(.max, now: -1) }
        #expect(throws: VAPIDError.expiry("must be after now")) { try claims(Self.now) }
        #expect(throws: VAPIDError.expiry("must be after now")) { try claims(.min) }
        #expect(throws: VAPIDError.expiry("must be after now")) { try claims(.min, now: .max) }
    }
}
