// A tour of TidingsKit against a running server:
//   swift run tidings-example --url http://127.0.0.1:8080 --key tdg_...
// It registers a fake iOS device, prints the badge, syncs (the cursor is
// kept in the caches folder, so a second run prints only what is new),
// then prints events live until Ctrl-C.
import Foundation
import TidingsKit

/// A line on stdout at once (print's buffer would hold a piped stream's lines).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let urlText = argument("--url"), let baseURL = URL(string: urlText), let key = argument("--key") else {
    FileHandle.standardError.write(Data("usage: tidings-example --url http://127.0.0.1:8080 --key tdg_...\n".utf8))
    exit(64)
}

let client = TidingsClient(baseURL: baseURL, apiKey: key)
do {
    // A fake APNs token: 32 random bytes, registered as hex.
    let token = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    let device = try await client.registerDevice(.apns(token), name: "tidings-example", locale: "en")
    say("device \(device.id) registered (\(device.pushToken.prefix(16))...)")

    say("badge: \(try await client.badge().count)")

    let engine = SyncEngine(client: client, store: DefaultCursorStore.named("example-\(baseURL.host ?? "server")"))
    let result = try await engine.sync()
    say("sync: \(result.changes.count) new change(s)\(result.resynced ? " (resynced)" : ""), badge \(result.badge.count)")
    for change in result.changes {
        say(
            "  \(change.detectedAt) \(change.watchName): \(change.diff.split(separator: "\n").first { $0.hasPrefix("+") && !$0.hasPrefix("+++") } ?? "")"
        )
    }

    say("listening (Ctrl-C to stop)...")
    for try await event in client.events() {
        switch event.type {
        case .badgeUpdated: say("[\(event.id ?? "-")] badge \(event.badgeCount ?? 0)")
        case .streamResync: say("[\(event.id ?? "-")] events were missed: \(try await engine.sync().changes.count) change(s) on resync")
        default: say("[\(event.id ?? "-")] \(event.type): \(String(decoding: event.json, as: UTF8.self))")
        }
    }
} catch {
    FileHandle.standardError.write(Data("tidings-example: \(error)\n".utf8))
    exit(1)
}
