import Foundation
import Testing

/// The openssl command line, so the key and signature tests check
/// TidingsCrypto against an implementation other than its own calls.
enum OpenSSLTool {
    /// Runs `openssl` with `arguments` in `directory`; its exit status.
    @discardableResult
    static func run(_ arguments: [String], in directory: URL) throws -> Int32 {
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

    /// A fresh directory for one test's files; the caller removes it.
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-crypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// `openssl genpkey <arguments>` into `name`; the PEM text.
    static func key(_ arguments: [String], in directory: URL, name: String) throws -> String {
        #expect(try run(["genpkey"] + arguments + ["-out", name], in: directory) == 0)
        return try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// r || s back to the DER `ECDSA-Sig-Value` openssl verifies.
    static func der(fromJOSE signature: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(signature[0..<32]) + integer(signature[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    /// A P-256 public key's SubjectPublicKeyInfo (DER) from its 65-byte
    /// uncompressed point: the fixed algorithm header, then the point.
    static func subjectPublicKeyInfo(p256Point point: [UInt8]) -> [UInt8] {
        Array(Data(base64Encoded: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgA=")!) + point
    }

    /// Whether openssl verifies `signature` (DER for EC) of `message` with
    /// the public half of the private key in `keyFile`.
    static func verifies(_ signature: [UInt8], of message: [UInt8], keyFile: String, in directory: URL) throws -> Bool {
        #expect(try run(["pkey", "-in", keyFile, "-pubout", "-out", "public.pem"], in: directory) == 0)
        return try verifies(signature, of: message, publicKeyFile: "public.pem", format: "PEM", in: directory)
    }

    /// Whether openssl verifies `signature` of `message` with the public
    /// key in `publicKeyFile` (`PEM` or `DER`).
    static func verifies(
        _ signature: [UInt8], of message: [UInt8], publicKeyFile: String, format: String, in directory: URL
    ) throws -> Bool {
        try Data(message).write(to: directory.appendingPathComponent("message"))
        try Data(signature).write(to: directory.appendingPathComponent("signature"))
        return try run(
            ["dgst", "-sha256", "-verify", publicKeyFile, "-keyform", format, "-signature", "signature", "message"],
            in: directory) == 0
    }
}
