/// Names of the statements one connection has prepared, keyed by SQL text.
///
/// Preparing once and executing by name saves the server a parse and plan
/// per query. The cache stops growing at `capacity`; statements beyond it
/// run unprepared, so code that builds many distinct SQL texts cannot make
/// a connection hold unbounded server memory.
struct PreparedStatementCache {
    let capacity: Int
    private var names: [String: String] = [:]

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    var count: Int {
        names.count
    }

    func name(for sql: String) -> String? {
        names[sql]
    }

    /// The name to prepare `sql` under, or nil when the cache is full.
    var nextName: String? {
        names.count < capacity ? "tidings_\(names.count + 1)" : nil
    }

    mutating func store(name: String, for sql: String) {
        names[sql] = name
    }
}
