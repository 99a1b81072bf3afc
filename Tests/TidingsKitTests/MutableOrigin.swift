import Foundation
import TidingsTestSupport

/// A page on a local origin whose text the test changes.
final class MutableOrigin: Sendable {
    private let text: Shared<String>
    let server: TestOriginServer

    init(_ initial: String) throws {
        let text = Shared(initial)
        self.text = text
        server = try TestOriginServer { _ in
            TestResponse(headers: [("Content-Type", "text/plain")], body: Array(text.value.utf8))
        }
    }

    var url: String { server.baseURL + "/page" }

    func set(_ newText: String) {
        text.value = newText
    }

    deinit {
        server.stop()
    }
}

/// A value a test's servers read and write from their own threads.
final class Shared<Value: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.withLock { body(&stored) }
    }
}
