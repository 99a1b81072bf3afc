import Foundation

/// Private keys made by the openssl command line, PEM.
enum TestKeys {
    static func p256() throws -> String {
        try generate(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
    }

    static func rsa2048() throws -> String {
        try generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
    }

    private static func generate(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pem = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MockError("openssl genpkey failed") }
        return String(decoding: pem, as: UTF8.self)
    }
}
