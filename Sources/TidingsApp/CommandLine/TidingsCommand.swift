import Foundation
import TidingsObservability

/// The `tidings` command line: `serve` (default), `migrate`,
/// `rotate-secret-key`, `--help`, `--version`. Returns the process exit
/// status.
package enum TidingsCommand {
    package static let version = "0.1.0"

    package static func run(arguments: [String], environment: [String: String]) -> Int32 {
        let command = arguments.dropFirst().first ?? "serve"
        switch command {
        case "-h", "--help", "help":
            print(ConfigurationVariable.helpText, terminator: "")
            return 0
        case "--version", "version":
            print("tidings \(version)")
            return 0
        case "serve", "migrate", "rotate-secret-key":
            break
        default:
            FileHandle.standardError.write(Data("tidings: unknown command \"\(command)\"\n\n\(ConfigurationVariable.helpText)".utf8))
            return 2
        }

        let configuration: Configuration
        do {
            configuration = try Configuration(environment: environment)
        } catch {
            FileHandle.standardError.write(Data("tidings: invalid configuration: \(error)\n".utf8))
            return 78
        }
        let logger = Logger(label: "tidings", logLevel: configuration.logLevel)
        defer { StandardOutputLogSink.shared.flush() }

        do {
            if command == "migrate" {
                try Application.migrate(configuration: configuration, logger: logger)
                return 0
            }
            if command == "rotate-secret-key" {
                let result = try Application.rotateSecretKey(configuration: configuration, logger: logger)
                StandardOutputLogSink.shared.flush()
                print("tidings rotate-secret-key: \(result)")
                return 0
            }
            let shutdownSignal = try ShutdownSignal()
            let application = try Application.start(configuration: configuration, logger: logger)
            let signal = shutdownSignal.wait()
            logger.notice("signal received", metadata: ["signal": signal])
            application.stop()
            return 0
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("tidings: invalid configuration: \(error)\n".utf8))
            return 78
        } catch {
            logger.critical(command == "serve" ? "tidings could not start" : "tidings \(command) failed", metadata: ["error": "\(error)"])
            return 1
        }
    }
}
