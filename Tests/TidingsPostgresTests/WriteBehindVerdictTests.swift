import Testing
import TidingsPostgres
import TidingsSynchronization

/// How a write to PostgreSQL is judged for the write-behind queue: races
/// are tried again, refusals dropped, silence waited out.
@Suite struct WriteBehindVerdictTests {
    struct Elsewhere: Error {}

    static func verdict(of error: any Error) -> WriteBehindVerdict {
        .recording { throw error }
    }

    @Test(arguments: ["23503", "40P01", "40001"])
    func aRaceIsTriedAgain(sqlState: String) {
        guard case .lostRace = Self.verdict(of: PostgresError(code: .server, sqlState: sqlState, message: "race")) else {
            Issue.record("SQLSTATE \(sqlState) is not a lost race")
            return
        }
    }

    @Test func whatTheServerRefusesIsDropped() {
        for error in [PostgresError(code: .server, sqlState: "22P02", message: "bad"), PostgresError(code: .decoding, message: "bad")] {
            guard case .refused = Self.verdict(of: error) else {
                Issue.record("\(error) is not a refusal")
                continue
            }
        }
    }

    @Test func silenceIsWaitedOut() {
        let errors: [any Error] = [
            PostgresError(code: .connectionFailed, message: "down"),
            PostgresError(code: .connectionClosed, message: "lost"),
            PostgresError(code: .poolTimeout, message: "busy"),
            Elsewhere(),
        ]
        for error in errors {
            guard case .unreachable = Self.verdict(of: error) else {
                Issue.record("\(error) is not unreachable")
                continue
            }
        }
    }

    @Test func aWriteThatReturnsIsWritten() {
        var ran = false
        guard case .written = WriteBehindVerdict.recording({ ran = true }) else {
            Issue.record("a write that returned is not written")
            return
        }
        #expect(ran)
    }
}
