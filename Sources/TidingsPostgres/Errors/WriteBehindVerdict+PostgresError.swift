package import TidingsSynchronization

extension WriteBehindVerdict {
    /// The verdict on a write to PostgreSQL: a deadlock, a serialization
    /// failure or a foreign key to a row deleted meanwhile lost a race
    /// (a fresh snapshot no longer sees the deleted rows); any other error
    /// the server returns, or a row it returns that cannot be decoded,
    /// would recur; anything else means the server did not answer.
    package static func recording(_ write: () throws -> Void) -> WriteBehindVerdict {
        do {
            try write()
            return .written
        } catch let error as PostgresError where error.isSerializationFailure || error.isForeignKeyViolation {
            return .lostRace(error)
        } catch let error as PostgresError where error.code == .server || error.code == .decoding {
            return .refused(error)
        } catch {
            return .unreachable(error)
        }
    }
}
