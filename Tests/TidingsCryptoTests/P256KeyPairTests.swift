import Foundation
import Testing
import TidingsCrypto

@Suite struct P256KeyPairTests {
    /// The RFC 8291 example's private keys give its public keys, and ECDH
    /// from either side gives its shared secret.
    @Test func rfc8291KeysAndSharedSecret() throws {
        let server = try P256KeyPair(base64URLPrivateKey: RFC8291Example.applicationServerPrivateKey)
        let browser = try P256KeyPair(base64URLPrivateKey: RFC8291Example.userAgentPrivateKey)
        #expect(server.publicKeyBase64URL == RFC8291Example.applicationServerPublicKey)
        #expect(browser.publicKeyBase64URL == RFC8291Example.userAgentPublicKey)
        let fromServer = try server.sharedSecret(with: P256PublicKey(base64URL: RFC8291Example.userAgentPublicKey))
        let fromBrowser = try browser.sharedSecret(with: P256PublicKey(base64URL: RFC8291Example.applicationServerPublicKey))
        #expect(Base64.encodeURLSafe(fromServer) == RFC8291Example.sharedSecret)
        #expect(fromBrowser == fromServer)
    }

    @Test func generatedKeysAreFreshAndAgree() throws {
        let first = try P256KeyPair.generate()
        let second = try P256KeyPair.generate()
        #expect(first.publicKeyBytes.count == 65 && first.publicKeyBytes[0] == 0x04)
        #expect(first.publicKeyBytes != second.publicKeyBytes)
        #expect(first.publicKeyBase64URL.count == 87)
        let oneWay = try first.sharedSecret(with: P256PublicKey(bytes: second.publicKeyBytes))
        let otherWay = try second.sharedSecret(with: P256PublicKey(bytes: first.publicKeyBytes))
        #expect(oneWay.count == 32 && oneWay == otherWay)
    }

    /// A generated key written as PKCS#8 reads back as itself, here and in
    /// the openssl command line, which derives the same public key.
    @Test func pkcs8PEMRoundTripsAndOpenSSLReadsIt() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for key in [try P256KeyPair.generate(), try P256KeyPair(base64URLPrivateKey: RFC8291Example.applicationServerPrivateKey)] {
            let pem = try key.pkcs8PEM()
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n") && pem.hasSuffix("-----END PRIVATE KEY-----\n"))
            #expect(try P256KeyPair(pem: pem).publicKeyBytes == key.publicKeyBytes)
            try pem.write(to: directory.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
            #expect(
                try OpenSSLTool.run(["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "public.der"], in: directory) == 0)
            let spki = try [UInt8](Data(contentsOf: directory.appendingPathComponent("public.der")))
            #expect(spki == OpenSSLTool.subjectPublicKeyInfo(p256Point: key.publicKeyBytes))
        }
    }

    /// Keys made by openssl, in both PEM forms: PKCS#8 and SEC1.
    @Test func readsOpenSSLKeysInPKCS8AndSEC1() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pkcs8 = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        #expect(try OpenSSLTool.run(["ec", "-in", "p256.pem", "-out", "sec1.pem"], in: directory) == 0)
        let sec1 = try String(contentsOf: directory.appendingPathComponent("sec1.pem"), encoding: .utf8)
        #expect(sec1.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        #expect(try OpenSSLTool.run(["pkey", "-in", "p256.pem", "-pubout", "-outform", "DER", "-out", "public.der"], in: directory) == 0)
        let spki = try [UInt8](Data(contentsOf: directory.appendingPathComponent("public.der")))
        for pem in [pkcs8, sec1] {
            let key = try P256KeyPair(pem: pem)
            #expect(OpenSSLTool.subjectPublicKeyInfo(p256Point: key.publicKeyBytes) == spki)
        }
    }

    /// The same key signs ES256 through SigningKey, and openssl verifies.
    @Test func signsAsES256SigningKey() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try P256KeyPair.generate()
        try key.pkcs8PEM().write(to: directory.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        let signer = SigningKey(es256: key)
        #expect(signer.algorithm == .es256)
        let message = Array("header.claims".utf8)
        let signature = try signer.sign(message)
        #expect(signature.count == 64)
        #expect(try OpenSSLTool.verifies(OpenSSLTool.der(fromJOSE: signature), of: message, keyFile: "key.pem", in: directory))
        #expect(try !OpenSSLTool.verifies(OpenSSLTool.der(fromJOSE: signature), of: message + [0x2e], keyFile: "key.pem", in: directory))
    }

    @Test func refusesPEMKeysThatAreNotP256() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let p384 = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], in: directory, name: "p384.pem")
        let rsa = try OpenSSLTool.key(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], in: directory, name: "rsa.pem")
        let ed25519 = try OpenSSLTool.key(["-algorithm", "ED25519"], in: directory, name: "ed25519.pem")
        let p256 = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        #expect(
            try OpenSSLTool.run(["pkey", "-in", "p256.pem", "-aes256", "-passout", "pass:secret", "-out", "locked.pem"], in: directory) == 0
        )
        let locked = try String(contentsOf: directory.appendingPathComponent("locked.pem"), encoding: .utf8)
        #expect(try OpenSSLTool.run(["pkey", "-in", "p256.pem", "-pubout", "-out", "public.pem"], in: directory) == 0)
        let publicOnly = try String(contentsOf: directory.appendingPathComponent("public.pem"), encoding: .utf8)

        #expect(throws: P256KeyError.wrongKind("must be on the P-256 curve, not secp384r1")) { try P256KeyPair(pem: p384) }
        #expect(throws: P256KeyError.wrongKind("must be an EC private key on the P-256 curve")) { try P256KeyPair(pem: rsa) }
        #expect(throws: P256KeyError.wrongKind("must be an EC private key on the P-256 curve")) { try P256KeyPair(pem: ed25519) }
        for unreadable in [
            locked, publicOnly, "", "not a key", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n",
            String(p256.dropLast(40)), p256.replacingOccurrences(of: "M", with: "N"),
        ] {
            #expect(throws: P256KeyError.unreadable) { try P256KeyPair(pem: unreadable) }
        }
        #expect(throws: P256KeyError.tooLarge(maximum: 16 * 1024)) {
            try P256KeyPair(pem: p256 + String(repeating: "A", count: 16 * 1024))
        }
    }

    /// The raw scalar must be 32 bytes, base64url, and in 1..<n.
    @Test func refusesRawPrivateKeysThatAreNotScalars() throws {
        let order = Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!
        var belowOrder = order
        belowOrder[31] -= 1
        #expect(try P256KeyPair(privateKey: belowOrder).publicKeyBytes.count == 65, "n - 1 is the largest private key")
        #expect(try P256KeyPair(privateKey: [UInt8](repeating: 0, count: 31) + [1]).publicKeyBytes.count == 65, "1 is the smallest")
        var aboveOrder = order
        aboveOrder[31] += 1
        for scalar in [[UInt8](repeating: 0, count: 32), order, aboveOrder, [UInt8](repeating: 0xff, count: 32)] {
            #expect(throws: P256KeyError.scalarOutOfRange) { try P256KeyPair(privateKey: scalar) }
        }
        #expect(throws: P256KeyError.wrongLength(expected: 32, actual: 0)) { try P256KeyPair(privateKey: []) }
        #expect(throws: P256KeyError.wrongLength(expected: 32, actual: 31)) { try P256KeyPair(privateKey: Array(belowOrder.prefix(31))) }
        #expect(throws: P256KeyError.wrongLength(expected: 32, actual: 33)) { try P256KeyPair(privateKey: [0] + belowOrder) }

        #expect(throws: P256KeyError.wrongLength(expected: 32, actual: 0)) { try P256KeyPair(base64URLPrivateKey: "") }
        #expect(throws: P256KeyError.wrongLength(expected: 32, actual: 31)) {
            try P256KeyPair(base64URLPrivateKey: Base64.encodeURLSafe(Array(belowOrder.prefix(31))))
        }
        for malformed in ["a", "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oR!", "yfWPiYE n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw", "==a"] {
            #expect(throws: P256KeyError.notBase64URL) { try P256KeyPair(base64URLPrivateKey: malformed) }
        }
        #expect(throws: P256KeyError.tooLarge(maximum: 32)) {
            try P256KeyPair(base64URLPrivateKey: String(repeating: RFC8291Example.applicationServerPrivateKey, count: 1000))
        }
        // A PEM file where base64url was expected is refused for its size.
        #expect(throws: P256KeyError.tooLarge(maximum: 32)) { try P256KeyPair(base64URLPrivateKey: try P256KeyPair.generate().pkcs8PEM()) }
        // The public key where the private one belongs is 65 bytes.
        #expect(throws: P256KeyError.tooLarge(maximum: 32)) {
            try P256KeyPair(base64URLPrivateKey: RFC8291Example.applicationServerPublicKey)
        }
    }

    @Test func oneKeyAgreesAndSignsOnManyThreadsAtOnce() async throws {
        let key = try P256KeyPair.generate()
        let peers = try (0..<8).map { _ in try P256KeyPair.generate() }
        let expected = try peers.map { try $0.sharedSecret(with: P256PublicKey(bytes: key.publicKeyBytes)) }
        let results = try await withThrowingTaskGroup(of: (Int, [UInt8], [UInt8]).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let peer = try P256PublicKey(bytes: peers[index % 8].publicKeyBytes)
                    return (index, try key.sharedSecret(with: peer), try SigningKey(es256: key).sign(Array("message \(index)".utf8)))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0.1 == expected[$0.0 % 8] && $0.2.count == 64 })
    }
}
