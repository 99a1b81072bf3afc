/// A test helper could not do its job (a process did not start).
struct MockError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
