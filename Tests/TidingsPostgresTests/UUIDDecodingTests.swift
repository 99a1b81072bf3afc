import Foundation
import Testing
import TidingsPostgres

/// uuids as PostgreSQL prints them take a hand-written path; other
/// spellings still go through Foundation, and malformed text fails.
@Suite struct UUIDDecodingTests {
    @Test func canonicalTextRoundTrips() throws {
        for _ in 0..<200 {
            let id = UUID()
            #expect(try UUID(postgresText: id.uuidString.lowercased()) == id)
        }
        #expect(
            try UUID(postgresText: "00000000-0000-0000-0000-000000000000") == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(try UUID(postgresText: "ffffffff-ffff-ffff-ffff-ffffffffffff").uuidString == "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")
    }

    @Test func upperCaseStillDecodes() throws {
        let id = UUID()
        #expect(try UUID(postgresText: id.uuidString) == id)
    }

    @Test(arguments: [
        "", "not-a-uuid", "0000000000000000-0000-0000-000000000000", "0000000g-0000-0000-0000-000000000000",
        "00000000-0000-0000-0000-00000000000",
    ])
    func malformedTextFails(_ text: String) {
        #expect(throws: PostgresError.self) { try UUID(postgresText: text) }
    }
}
