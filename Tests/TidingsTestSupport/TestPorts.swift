/// Ports for a `tidings` process a test starts on an address of its own
/// choosing.
package enum TestPorts {
    /// A random port below Linux's ephemeral range (32768-60999), where the
    /// kernel places every server bound to port 0 and every outbound
    /// connection of the tests running beside this one. A port from that
    /// range could be taken: the process would fail to listen, and another
    /// test's server on it would answer in its place.
    package static func randomListenPort() -> Int {
        Int.random(in: 20_000...32_000)
    }
}
