import Testing
import TidingsSynchronization

@Suite struct MinHeapTests {
    @Test func popsInOrderWhateverThePushOrder() {
        var heap = MinHeap<Int>()
        var generator = SystemRandomNumberGenerator()
        let values = (0..<1_000).map { _ in Int.random(in: -500..<500, using: &generator) }
        for value in values { heap.push(value) }
        #expect(heap.count == 1_000)
        var popped: [Int] = []
        while let value = heap.popFirst() { popped.append(value) }
        #expect(popped == values.sorted())
        #expect(heap.first == nil && heap.popFirst() == nil)
    }

    @Test func removingElementsKeepsTheOrderOfTheRest() {
        var heap = MinHeap<Int>()
        for value in (0..<200).reversed() { heap.push(value) }
        heap.removeAll { $0.isMultiple(of: 3) }
        var popped: [Int] = []
        while let value = heap.popFirst() { popped.append(value) }
        #expect(popped == (0..<200).filter { !$0.isMultiple(of: 3) })
    }
}
