import Foundation

/// Private keys for push tests, made once per process by the openssl
/// command (a P-256 key as Apple's .p8 files hold, an RSA key as Google
/// service accounts hold) in a temporary folder; the PEM files' paths are
/// there for mock push servers to read the public halves from.
package enum TestPushKeys {
    package struct KeyFile: Sendable {
        package let path: String
        package let pem: String
    }

    package static let p256: KeyFile = make(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], name: "apns-p256.pem")
    package static let otherP256: KeyFile = make(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], name: "apns-other.pem")
    package static let rsa: KeyFile = make(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], name: "fcm-rsa.pem")

    private static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-push-keys-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private static func make(_ arguments: [String], name: String) -> KeyFile {
        let path = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey"] + arguments + ["-out", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { fatalError("openssl genpkey failed for \(name)") }
            return KeyFile(path: path, pem: try String(contentsOfFile: path, encoding: .utf8))
        } catch {
            fatalError("openssl genpkey could not run: \(error)")
        }
    }

    /// A service-account JSON object as Google's console downloads it.
    package static func serviceAccount(projectID: String = "tidings-test", tokenURI: String = "https://oauth2.example.com/token")
        -> [String: Any]
    {
        [
            "type": "service_account",
            "project_id": projectID,
            "private_key_id": "0123456789abcdef",
            "private_key": rsa.pem,
            "client_email": "tidings@\(projectID).iam.gserviceaccount.com",
            "client_id": "1234567890",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": tokenURI,
        ]
    }
}
