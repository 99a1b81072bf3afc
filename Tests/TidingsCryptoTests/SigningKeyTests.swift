import Foundation
import Testing
import TidingsCrypto

/// Keys made by the openssl command line, signatures checked by it too, so
/// the test does not grade its own homework.
@Suite struct SigningKeyTests {
    @Test func es256SignaturesAreRawAndVerify() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        let key = try SigningKey(pem: pem, algorithm: .es256)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)
        for _ in 0..<8 {
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            #expect(try OpenSSLTool.verifies(OpenSSLTool.der(fromJOSE: signature), of: message, keyFile: "p256.pem", in: directory))
        }
        var altered = try key.sign(message)
        altered[10] ^= 0x01
        #expect(try !OpenSSLTool.verifies(OpenSSLTool.der(fromJOSE: altered), of: message, keyFile: "p256.pem", in: directory))
    }

    @Test func rs256SignaturesVerify() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try OpenSSLTool.key(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], in: directory, name: "rsa.pem")
        let key = try SigningKey(pem: pem, algorithm: .rs256)
        let message = Array("header.claims".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 256)
        #expect(try OpenSSLTool.verifies(signature, of: message, keyFile: "rsa.pem", in: directory))
        #expect(try !OpenSSLTool.verifies(signature, of: message + [0x2e], keyFile: "rsa.pem", in: directory))
    }

    @Test func compactTokensJoinBase64URLParts() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        let key = try SigningKey(pem: pem, algorithm: .es256)
        let header = Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8)
        let claims = Array(#"{"iss":"TEAM","iat":1764547200}"#.utf8)
        let token = try JSONWebToken.compact(headerJSON: header, claimsJSON: claims, key: key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
        #expect(Base64.decode(parts[0]) == header)
        #expect(Base64.decode(parts[1]) == claims)
        let signature = try #require(Base64.decode(parts[2]))
        #expect(
            try OpenSSLTool.verifies(
                OpenSSLTool.der(fromJOSE: signature), of: Array("\(parts[0]).\(parts[1])".utf8), keyFile: "p256.pem", in: directory))
    }

    @Test func keysThatDoNotFitAreRefusedWithAReason() throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let p384 = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], in: directory, name: "p384.pem")
        let rsa1024 = try OpenSSLTool.key(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"], in: directory, name: "rsa1024.pem")
        let p256 = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        #expect(
            try OpenSSLTool.run(["pkey", "-in", "p256.pem", "-aes256", "-passout", "pass:secret", "-out", "locked.pem"], in: directory) == 0
        )
        let locked = try String(contentsOf: directory.appendingPathComponent("locked.pem"), encoding: .utf8)

        #expect(throws: SigningKeyError.wrongKind("must be on the P-256 curve, not secp384r1")) {
            try SigningKey(pem: p384, algorithm: .es256)
        }
        #expect(throws: SigningKeyError.wrongKind("must be an RSA key of at least 2048 bits")) {
            try SigningKey(pem: rsa1024, algorithm: .rs256)
        }
        #expect(throws: SigningKeyError.wrongKind("must be an RSA private key")) { try SigningKey(pem: p256, algorithm: .rs256) }
        #expect(throws: SigningKeyError.wrongKind("must be an EC private key on the P-256 curve")) {
            try SigningKey(pem: rsa1024, algorithm: .es256)
        }
        #expect(throws: SigningKeyError.unreadable) { try SigningKey(pem: locked, algorithm: .es256) }
        for garbage in [
            "", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n", "not a key", String(p256.dropLast(40)),
            p256.replacingOccurrences(of: "M", with: "N"),
        ] {
            #expect(throws: SigningKeyError.unreadable) { try SigningKey(pem: garbage, algorithm: .es256) }
        }
        let huge = p256 + String(repeating: "A", count: SigningKey.maximumPEMLength)
        #expect(throws: SigningKeyError.tooLarge(maximum: SigningKey.maximumPEMLength)) { try SigningKey(pem: huge, algorithm: .es256) }
    }

    @Test func oneKeySignsOnManyThreadsAtOnce() async throws {
        let directory = try OpenSSLTool.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try OpenSSLTool.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        let key = try SigningKey(pem: pem, algorithm: .es256)
        let signatures = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<64 {
                group.addTask { try key.sign(Array("message \(index)".utf8)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(signatures.count == 64 && signatures.allSatisfy { $0.count == 64 })
        #expect(Set(signatures).count == 64)
    }
}
