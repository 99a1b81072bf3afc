import Foundation
import Testing
import TidingsDomain
import TidingsPostgres

/// `targets.headers_fingerprint` is 64 lower-case hex digits, checked by a
/// trigger on the writes that set it rather than a CHECK constraint on
/// every update (migration 0043), under the constraint's old name.
@Suite struct TargetFingerprintRuleTests {
    @Test func aMalformedFingerprintIsRefusedOnInsertAndOnUpdate() throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let targetID = try context.watch(user: try context.user(), url: "https://93.184.215.14/fingerprint").targetID
        let database = context.database

        for bad in ["", String(repeating: "A", count: 64), String(repeating: "a", count: 63), String(repeating: "g", count: 64)] {
            let inserted = #expect(throws: PostgresError.self) {
                _ = try database.withConnection {
                    try $0.execute("INSERT INTO targets (url, headers_fingerprint) VALUES ('https://93.184.215.14/other', \(bad))")
                }
            }
            #expect(inserted?.sqlState == "23514", "\(bad.debugDescription) on insert")
            #expect(inserted?.message.contains("targets_headers_fingerprint_check") == true)
            let updated = #expect(throws: PostgresError.self) {
                _ = try database.withConnection {
                    try $0.execute("UPDATE targets SET headers_fingerprint = \(bad) WHERE id = \(targetID)")
                }
            }
            #expect(updated?.sqlState == "23514", "\(bad.debugDescription) on update")
        }
        let good = String(repeating: "0123456789abcdef", count: 4)
        let updated = try database.withConnection {
            try $0.execute("UPDATE targets SET headers_fingerprint = \(good) WHERE id = \(targetID)")
        }
        #expect(updated == 1)
    }
}
