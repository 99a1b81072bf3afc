import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

extension RequestContext {
    /// A path parameter that must be a UUID; 400 naming it otherwise.
    func uuidParameter(_ name: String) throws -> UUID {
        let raw = try parameter(name)
        guard let id = UUID(uuidString: raw) else {
            throw HTTPError.field(name, "must be a UUID", status: .badRequest)
        }
        return id
    }
}

extension HTTPRequest {
    /// `limit` (1-200, default 50) and `cursor` from the query string.
    func pageRequest() throws -> PageRequest {
        var limit = PageRequest.defaultLimit
        if let raw = query["limit"] {
            guard let value = Int(raw), (1...PageRequest.maximumLimit).contains(value) else {
                throw HTTPError.field("limit", "must be an integer from 1 to \(PageRequest.maximumLimit)", status: .badRequest)
            }
            limit = value
        }
        var cursor: PageCursor?
        if let raw = query["cursor"] {
            guard let parsed = PageCursor(token: raw) else {
                throw HTTPError.field("cursor", "is not a cursor returned by this API", status: .badRequest)
            }
            cursor = parsed
        }
        return PageRequest(limit: limit, cursor: cursor)
    }
}
