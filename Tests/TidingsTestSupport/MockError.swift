/// A test helper could not do its job (a process did not start).
package struct MockError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
