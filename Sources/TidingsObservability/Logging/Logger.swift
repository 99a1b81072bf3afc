package import FoundationEssentials

/// A structured logger: a value carrying a label, a minimum level and
/// metadata. Enrich it by copying (`logger[metadataKey: "watch.id"] = ...`);
/// every line is one JSON object on the sink.
package struct Logger: Sendable {
    package var label: String
    package var logLevel: LogLevel
    package var metadata: [String: String]
    private let sink: any LogSink

    package init(label: String, logLevel: LogLevel = .info, sink: any LogSink = StandardOutputLogSink.shared) {
        self.label = label
        self.logLevel = logLevel
        self.metadata = [:]
        self.sink = sink
    }

    package subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func isEnabled(_ level: LogLevel) -> Bool {
        level >= logLevel
    }

    package func log(
        level: LogLevel,
        _ message: @autoclosure () -> String,
        metadata extra: [String: String] = [:]
    ) {
        guard isEnabled(level) else { return }
        var fields = metadata
        if fields.isEmpty {
            fields = extra
        } else {
            for (key, value) in extra { fields[key] = value }
        }
        sink.write(
            line: LogLineEncoder.encode(timestamp: Date(), level: level, label: label, message: message(), metadata: fields),
            level: level
        )
    }

    package func trace(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .trace, message(), metadata: metadata)
    }

    package func debug(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .debug, message(), metadata: metadata)
    }

    package func info(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .info, message(), metadata: metadata)
    }

    package func notice(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .notice, message(), metadata: metadata)
    }

    package func warning(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .warning, message(), metadata: metadata)
    }

    package func error(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .error, message(), metadata: metadata)
    }

    package func critical(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .critical, message(), metadata: metadata)
    }
}
