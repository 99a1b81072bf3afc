import Testing
import TidingsSynchronization

@Suite struct FairQueueTests {
    @Test func keysTakeTurnsAndEachKeepsItsOrder() {
        var queue = FairQueue<String, String>()
        for index in 1...4 { queue.append("a\(index)", key: "a") }
        queue.append("b1", key: "b")
        queue.append("b2", key: "b")
        queue.append("c1", key: "c")
        #expect(queue.count == 7)
        var order: [String] = []
        while let element = queue.popFirst() { order.append(element) }
        #expect(order == ["a1", "b1", "c1", "a2", "b2", "a3", "a4"])
        #expect(queue.isEmpty && queue.count == 0)
    }

    @Test func aKeyThatComesBackWaitsBehindTheOthers() {
        var queue = FairQueue<String, String>()
        queue.append("a1", key: "a")
        queue.append("a2", key: "a")
        queue.append("b1", key: "b")
        #expect(queue.popFirst() == "a1")
        #expect(queue.popFirst() == "b1") // b's lane is empty now
        queue.append("b2", key: "b")
        queue.append("c1", key: "c")
        #expect(queue.removeAll() == ["a2", "b2", "c1"])
    }

    /// One key with a thousand waiting delays another's next element by
    /// one element, not by the thousand.
    @Test func aLongLaneDelaysOthersByOneElement() {
        var queue = FairQueue<Int, Int>()
        for index in 0..<1000 { queue.append(index, key: 0) }
        #expect(queue.popFirst() == 0)
        queue.append(-1, key: 1)
        #expect(queue.popFirst() == 1)
        #expect(queue.popFirst() == -1)
        #expect(queue.count == 998)
    }

    @Test func aTakenElementIsReleased() {
        final class Payload {}
        var queue = FairQueue<Int, Payload>()
        weak var released: Payload?
        do {
            let payload = Payload()
            released = payload
            queue.append(payload, key: 0)
            for _ in 0..<100 { queue.append(Payload(), key: 0) }
            _ = queue.popFirst()
        }
        #expect(released == nil)
    }

    @Test func randomUseMatchesAModel() {
        var queue = FairQueue<Int, Int>()
        var model: [Int: [Int]] = [:]
        var generator = SystemRandomNumberGenerator()
        var next = 0
        for _ in 0..<5000 {
            if Int.random(in: 0..<3, using: &generator) > 0 {
                let key = Int.random(in: 0..<5, using: &generator)
                queue.append(next, key: key)
                model[key, default: []].append(next)
                next += 1
            } else if let element = queue.popFirst() {
                let key = model.first { $0.value.first == element }?.key
                #expect(key != nil, "\(element) is the head of its key's lane")
                if let key { model[key]!.removeFirst() }
            }
            #expect(queue.count == model.values.map(\.count).reduce(0, +))
        }
    }
}
