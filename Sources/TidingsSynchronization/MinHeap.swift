/// A binary min-heap: the one priority queue of the timers and schedules
/// (`DeadlineSchedule`, the poller's `HeldSchedule`). Pure and unlocked;
/// its owner keeps it behind a lock. Public and inlinable, so each user's
/// element type is compared directly rather than through a witness table
/// (decision 0060).
public struct MinHeap<Element: Comparable> {
    @usableFromInline var elements: [Element] = []

    @inlinable package init() {}

    /// The least element; nil when empty.
    @inlinable package var first: Element? { elements.first }

    @inlinable package var count: Int { elements.count }

    @inlinable package mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the least element; nil when empty.
    @inlinable @discardableResult
    package mutating func popFirst() -> Element? {
        guard let first = elements.first else { return nil }
        let last = elements.removeLast()
        if !elements.isEmpty {
            elements[0] = last
            siftDown(from: 0)
        }
        return first
    }

    /// Drops the elements `shouldBeRemoved` picks and restores the order
    /// (leftovers of entries their owner no longer wants).
    @inlinable package mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        try elements.removeAll(where: shouldBeRemoved)
        var index = elements.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    @inlinable mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < elements.count else { return }
            let right = left + 1
            let child = right < elements.count && elements[right] < elements[left] ? right : left
            guard elements[child] < elements[parent] else { return }
            elements.swapAt(child, parent)
            parent = child
        }
    }
}

extension MinHeap: Sendable where Element: Sendable {}
