import Foundation
import Testing
import TidingsCrypto

/// Keys made by the openssl command line, signatures checked by it too, so
/// the test does not grade its own homework.
@Suite struct SigningKeyTests {
    /// Runs `openssl` with `arguments` in `directory`; its exit status.
    @discardableResult
    private static func openssl(_ arguments: [String], in directory: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    private static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private static func key(_ arguments: [String], in directory: URL, name: String) throws -> String {
        #expect(try openssl(["genpkey"] + arguments + ["-out", name], in: directory) == 0)
        return try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// r || s back to the DER `ECDSA-Sig-Value` openssl verifies.
    private static func der(fromJOSE signature: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(signature[0..<32]) + integer(signature[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    private static func verifies(_ signature: [UInt8], of message: [UInt8], keyFile: String, in directory: URL) throws -> Bool {
        try Data(message).write(to: directory.appendingPathComponent("message"))
        try Data(signature).write(to: directory.appendingPathComponent("signature"))
        #expect(try openssl(["pkey", "-in", keyFile, "-pubout", "-out", "public.pem"], in: directory) == 0)
        return try openssl(["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature", "message"], in: directory) == 0
    }

    @Test func es256SignaturesAreRawAndVerify() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try Self.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        let key = try SigningKey(pem: pem, algorithm: .es256)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)
        for _ in 0..<8 {
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            #expect(try Self.verifies(Self.der(fromJOSE: signature), of: message, keyFile: "p256.pem", in: directory))
        }
        var altered = try key.sign(message)
        altered[10] ^= 0x01
        #expect(try !Self.verifies(Self.der(fromJOSE: altered), of: message, keyFile: "p256.pem", in: directory))
    }

    @Test func rs256SignaturesVerify() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try Self.key(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], in: directory, name: "rsa.pem")
        let key = try SigningKey(pem: pem, algorithm: .rs256)
        let message = Array("header.claims".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 256)
        #expect(try Self.verifies(signature, of: message, keyFile: "rsa.pem", in: directory))
        #expect(try !Self.verifies(signature, of: message + [0x2e], keyFile: "rsa.pem", in: directory))
    }

    @Test func compactTokensJoinBase64URLParts() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try Self.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
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
        #expect(try Self.verifies(Self.der(fromJOSE: signature), of: Array("\(parts[0]).\(parts[1])".utf8), keyFile: "p256.pem", in: directory))
    }

    @Test func keysThatDoNotFitAreRefusedWithAReason() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let p384 = try Self.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], in: directory, name: "p384.pem")
        let rsa1024 = try Self.key(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"], in: directory, name: "rsa1024.pem")
        let p256 = try Self.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
        #expect(try Self.openssl(["pkey", "-in", "p256.pem", "-aes256", "-passout", "pass:secret", "-out", "locked.pem"], in: directory) == 0)
        let locked = try String(contentsOf: directory.appendingPathComponent("locked.pem"), encoding: .utf8)

        #expect(throws: SigningKeyError.wrongKind("must be on the P-256 curve, not secp384r1")) { try SigningKey(pem: p384, algorithm: .es256) }
        #expect(throws: SigningKeyError.wrongKind("must be an RSA key of at least 2048 bits")) { try SigningKey(pem: rsa1024, algorithm: .rs256) }
        #expect(throws: SigningKeyError.wrongKind("must be an RSA private key")) { try SigningKey(pem: p256, algorithm: .rs256) }
        #expect(throws: SigningKeyError.wrongKind("must be an EC private key on the P-256 curve")) { try SigningKey(pem: rsa1024, algorithm: .es256) }
        #expect(throws: SigningKeyError.unreadable) { try SigningKey(pem: locked, algorithm: .es256) }
        for garbage in ["", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n", "not a key", String(p256.dropLast(40)),
                        p256.replacingOccurrences(of: "M", with: "N")] {
            #expect(throws: SigningKeyError.unreadable) { try SigningKey(pem: garbage, algorithm: .es256) }
        }
        let huge = p256 + String(repeating: "A", count: SigningKey.maximumPEMLength)
        #expect(throws: SigningKeyError.tooLarge(maximum: SigningKey.maximumPEMLength)) { try SigningKey(pem: huge, algorithm: .es256) }
    }

    @Test func oneKeySignsOnManyThreadsAtOnce() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try Self.key(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: directory, name: "p256.pem")
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
