package import FoundationEssentials

extension UUID {
    /// The lower-case form RFC 9562 asks for on output. PostgreSQL prints
    /// uuids this way, and so do the events built in the database, so an id
    /// reads the same in a response and in a webhook.
    package var canonicalString: String {
        uuidString.lowercased()
    }
}
