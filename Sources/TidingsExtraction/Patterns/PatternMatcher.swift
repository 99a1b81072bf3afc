/// Runs a `PatternProgram` without backtracking (Pike's VM): every thread
/// of the NFA advances one scalar at a time in lockstep, kept in priority
/// order and merged when two reach the same instruction, so one search
/// costs at most text length x program size steps and matches are the
/// leftmost-first ones a backtracking engine reports.
struct PatternMatcher {
    private let instructions: [PatternProgram.Instruction]
    private let sets: [ScalarSet]

    init(_ program: PatternProgram) {
        instructions = program.instructions
        sets = program.sets
    }

    /// `text` with every non-overlapping match removed, scanning left to
    /// right; an empty match removes nothing.
    func removeMatches(from text: [Unicode.Scalar], meter: inout PatternMeter) throws(ExtractionError) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        var current = ThreadList(size: instructions.count)
        var next = ThreadList(size: instructions.count)
        var kept = 0
        var position = 0
        while position <= text.count, let match = try firstMatch(in: text, from: position, current: &current, next: &next, meter: &meter) {
            output.append(contentsOf: text[kept..<match.lowerBound])
            kept = match.upperBound
            position = match.isEmpty ? match.upperBound + 1 : match.upperBound
        }
        output.append(contentsOf: text[kept...])
        return output
    }

    private func firstMatch(
        in text: [Unicode.Scalar],
        from start: Int,
        current: inout ThreadList,
        next: inout ThreadList,
        meter: inout PatternMeter
    ) throws(ExtractionError) -> Range<Int>? {
        var matched: Range<Int>?
        var position = start
        current.reset()
        while true {
            if matched == nil {
                if current.isEmpty, case .consume(let first) = instructions[0] {
                    // Nothing in flight: skip where no match can start.
                    while position < text.count, !sets[first].matches(text[position]) {
                        try meter.step()
                        position += 1
                    }
                    if position == text.count { return nil }
                }
                try add(0, start: position, at: position, in: text, to: &current, meter: &meter)
            }
            if current.isEmpty {
                // No thread here (an assertion failed): a match found ends
                // the search, else it goes on at the next position.
                if matched != nil || position == text.count { return matched }
                current.reset()
                position += 1
                continue
            }
            next.reset()
            threads: for index in 0..<current.count {
                try meter.step()
                let (pc, threadStart) = (current.pcs[index], current.starts[index])
                switch instructions[pc] {
                case .consume(let set):
                    if position < text.count, sets[set].matches(text[position]) {
                        try add(pc + 1, start: threadStart, at: position + 1, in: text, to: &next, meter: &meter)
                    }
                case .match:
                    // Threads after this one have lower priority: drop them.
                    matched = threadStart..<position
                    break threads
                case .split, .jump, .assert:
                    // `add` follows these at once; lists never hold them.
                    break
                }
            }
            if position == text.count { return matched }
            swap(&current, &next)
            position += 1
        }
    }

    /// Adds the thread at `pc` and everything it reaches without consuming,
    /// in priority order; an instruction already in the list is skipped (a
    /// thread of higher priority got there first).
    private func add(
        _ pc: Int,
        start: Int,
        at position: Int,
        in text: [Unicode.Scalar],
        to list: inout ThreadList,
        meter: inout PatternMeter
    ) throws(ExtractionError) {
        list.stack.append(pc)
        while let pc = list.stack.popLast() {
            guard list.marks[pc] != list.generation else { continue }
            list.marks[pc] = list.generation
            try meter.step()
            switch instructions[pc] {
            case .jump(let target):
                list.stack.append(target)
            case .split(let preferred, let other):
                list.stack.append(other)
                list.stack.append(preferred)
            case .assert(let assertion):
                let before = position > 0 ? text[position - 1] : nil
                let after = position < text.count ? text[position] : nil
                if assertion.holds(before: before, after: after) { list.stack.append(pc + 1) }
            case .consume, .match:
                list.pcs.append(pc)
                list.starts.append(start)
            }
        }
    }
}

/// The threads alive at one text position, in priority order. `marks`
/// holds the generation an instruction was last added in, so a reset
/// costs nothing.
private struct ThreadList {
    var pcs: [Int] = []
    var starts: [Int] = []
    var marks: [Int]
    var generation = 0
    var stack: [Int] = []

    init(size: Int) {
        marks = Array(repeating: -1, count: size)
    }

    var isEmpty: Bool { pcs.isEmpty }
    var count: Int { pcs.count }

    mutating func reset() {
        pcs.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        generation += 1
    }
}

/// Counts matcher steps against the extraction's budget, and looks at
/// the clock every few thousand steps.
struct PatternMeter {
    private let budget: ExtractionBudget
    private let patternNumber: Int
    private var remaining: Int
    private var untilClock = PatternMeter.clockInterval

    private static let clockInterval = 1 << 14

    init(budget: ExtractionBudget, patternNumber: Int) {
        self.budget = budget
        self.patternNumber = patternNumber
        remaining = budget.limits.patternStepLimit
    }

    mutating func step() throws(ExtractionError) {
        remaining -= 1
        untilClock -= 1
        guard remaining >= 0 else {
            throw ExtractionError(
                code: .operationLimitExceeded,
                message: "ignore pattern \(patternNumber) needed more than \(budget.limits.patternStepLimit) matching steps"
            )
        }
        if untilClock == 0 {
            untilClock = Self.clockInterval
            try budget.checkTime(during: "matching ignore pattern \(patternNumber)")
        }
    }
}
