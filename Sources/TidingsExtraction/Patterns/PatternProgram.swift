/// A pattern compiled for `PatternMatcher`: a Thompson NFA as a list of
/// instructions, `split` listing the preferred branch first.
struct PatternProgram {
    enum Instruction {
        /// Consumes a scalar in `sets[index]` (kept apart so that reading
        /// an instruction copies no arrays).
        case consume(Int)
        case split(Int, Int)
        case jump(Int)
        case assert(PatternAssertion)
        case match
    }

    /// Instructions a pattern may expand to (`(abc){1000}` is 3,000): the
    /// matcher's work per text scalar grows with it.
    static let maximumSize = 10_000

    let instructions: [Instruction]
    let sets: [ScalarSet]

    init(_ node: PatternNode) throws(PatternParser.Problem) {
        guard Self.size(of: node) < Self.maximumSize else {
            throw PatternParser.Problem(message: "is too large once its repetitions are expanded (at most \(Self.maximumSize) steps)")
        }
        var builder = Builder()
        builder.emit(node)
        builder.instructions.append(.match)
        instructions = builder.instructions
        sets = builder.sets
    }

    /// Instructions `node` compiles to, saturating at `maximumSize`.
    private static func size(of node: PatternNode) -> Int {
        switch node {
        case .empty: return 0
        case .scalars, .assertion: return 1
        case .concatenation(let items): return items.reduce(0) { min($0 + size(of: $1), maximumSize) }
        case .alternation(let branches): return min(branches.reduce(0) { min($0 + size(of: $1) + 2, maximumSize) }, maximumSize)
        case .repetition(let inner, let minimum, let maximum, _):
            let copies = max(maximum ?? (minimum + 1), 1)
            let (total, overflow) = (size(of: inner) + 2).multipliedReportingOverflow(by: copies)
            return overflow ? maximumSize : min(total, maximumSize)
        }
    }

    private struct Builder {
        var instructions: [Instruction] = []
        var sets: [ScalarSet] = []

        mutating func emit(_ node: PatternNode) {
            switch node {
            case .empty:
                break
            case .scalars(let set):
                instructions.append(.consume(sets.count))
                sets.append(set)
            case .assertion(let assertion):
                instructions.append(.assert(assertion))
            case .concatenation(let items):
                for item in items { emit(item) }
            case .alternation(let branches):
                // split L1, next; L1: branch; jump end; next: split ... ;
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    if index == branches.count - 1 {
                        emit(branch)
                    } else {
                        let split = reserve()
                        emit(branch)
                        jumps.append(reserve())
                        instructions[split] = .split(split + 1, instructions.count)
                    }
                }
                for jump in jumps { instructions[jump] = .jump(instructions.count) }
            case .repetition(let inner, let minimum, let maximum, let lazy):
                for _ in 0..<minimum { emit(inner) }
                if let maximum {
                    // Optional copies: each may be skipped to the end.
                    var splits: [Int] = []
                    for _ in minimum..<maximum {
                        splits.append(reserve())
                        emit(inner)
                    }
                    for split in splits { instructions[split] = branch(split + 1, instructions.count, lazy: lazy) }
                } else {
                    let loop = reserve()
                    emit(inner)
                    instructions.append(.jump(loop))
                    instructions[loop] = branch(loop + 1, instructions.count, lazy: lazy)
                }
            }
        }

        private func branch(_ body: Int, _ exit: Int, lazy: Bool) -> Instruction {
            lazy ? .split(exit, body) : .split(body, exit)
        }

        /// A placeholder patched once its targets are known.
        private mutating func reserve() -> Int {
            instructions.append(.match)
            return instructions.count - 1
        }
    }
}
