/// A queue that takes turns between keys: each key's elements come out in
/// the order they went in, and the keys with elements waiting are served
/// one element each in turn. One key with a thousand queued elements thus
/// delays another key's next element by at most one element per other key,
/// not by its thousand (a tenant's slow extractions, `ThreadPool`).
///
/// A taken element's slot is emptied at once, so what it holds is released
/// when the caller drops it, not when the storage is next compacted.
package struct FairQueue<Key: Hashable, Element> {
    private struct Lane {
        var elements: [Element?] = []
        var head = 0

        var isEmpty: Bool { head == elements.count }

        mutating func popFirst() -> Element? {
            guard head < elements.count else { return nil }
            defer {
                elements[head] = nil
                head += 1
                if head == elements.count {
                    elements.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= 64 && head * 2 >= elements.count {
                    elements.removeFirst(head)
                    head = 0
                }
            }
            return elements[head]
        }
    }

    private var lanes: [Key: Lane] = [:]
    /// Keys with elements waiting, in the order they are served; `turn` is
    /// the next one.
    private var ring: [Key] = []
    private var turn = 0

    package private(set) var count = 0

    package init() {}

    package var isEmpty: Bool { count == 0 }

    package mutating func append(_ element: Element, key: Key) {
        if lanes[key, default: Lane()].isEmpty {
            // A key that comes back waits a whole turn behind the others.
            ring.insert(key, at: turn)
            turn += 1
            if turn == ring.count { turn = 0 }
        }
        lanes[key, default: Lane()].elements.append(element)
        count += 1
    }

    /// The next element in turn, or nil when none waits.
    package mutating func popFirst() -> Element? {
        guard !ring.isEmpty else { return nil }
        let key = ring[turn]
        let element = lanes[key]?.popFirst()
        if lanes[key]?.isEmpty ?? true {
            lanes.removeValue(forKey: key)
            ring.remove(at: turn)
        } else {
            turn += 1
        }
        if turn >= ring.count { turn = 0 }
        count -= 1
        return element
    }

    /// Takes every element out, in turn order.
    package mutating func removeAll() -> [Element] {
        var all: [Element] = []
        all.reserveCapacity(count)
        while let element = popFirst() { all.append(element) }
        return all
    }
}
