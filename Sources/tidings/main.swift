import Foundation
import TidingsApp

exit(TidingsCommand.run(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
