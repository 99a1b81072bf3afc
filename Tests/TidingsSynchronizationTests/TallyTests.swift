import Testing
import TidingsSynchronization

@Suite("Tally")
struct TallyTests {
    @Test("counts per key and in all, and drops a key at zero")
    func countsAndDrops() {
        var tally = Tally<String>()
        tally.add("a")
        tally.add("a")
        tally.add("b")
        #expect(tally["a"] == 2)
        #expect(tally["b"] == 1)
        #expect(tally["c"] == 0)
        #expect(tally.total == 3)
        tally.remove("b")
        #expect(tally["b"] == 0)
        #expect(tally.counts.keys.sorted() == ["a"])
        #expect(tally.total == 2)
    }

    @Test("removing a key with nothing counted changes nothing")
    func removeWithoutAdd() {
        var tally = Tally<Int>()
        tally.add(1)
        tally.remove(2)
        tally.remove(2)
        #expect(tally.total == 1)
        #expect(tally.counts == [1: 1])
        tally.remove(1)
        tally.remove(1)
        #expect(tally.total == 0)
        #expect(tally.counts.isEmpty)
    }

    @Test("keys at a limit")
    func keysAtLimit() {
        var tally = Tally<String>()
        for _ in 0..<3 { tally.add("busy") }
        tally.add("quiet")
        #expect(tally.keys(atLeast: 3) == ["busy"])
        #expect(tally.keys(atLeast: 1).sorted() == ["busy", "quiet"])
        #expect(tally.keys(atLeast: 4).isEmpty)
    }
}
