import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsJSON
import TidingsObservability

/// A device as the API shows it. The push token is included: it addresses
/// the install at its push gateway and grants nothing on this API.
struct DeviceRepresentation: Sendable {
    let id: UUID
    let platform: String
    let pushToken: String
    let appID: String?
    let name: String?
    let locale: String?
    let lastSeenAt: Date
    let createdAt: Date
    let updatedAt: Date

    init(_ device: Device) {
        id = device.id
        platform = device.platform.rawValue
        pushToken = device.pushToken
        appID = device.appID
        name = device.name
        locale = device.locale
        lastSeenAt = device.lastSeenAt
        createdAt = device.createdAt
        updatedAt = device.updatedAt
    }
}

extension DeviceRepresentation: JSONWritable {
    /// Keys in sorted order, nulls explicit.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("app_id")
        writer.value(appID)
        writer.key("created_at")
        writer.value(createdAt)
        writer.key("id")
        writer.value(id)
        writer.key("last_seen_at")
        writer.value(lastSeenAt)
        writer.key("locale")
        writer.value(locale)
        writer.key("name")
        writer.value(name)
        writer.key("platform")
        writer.value(platform)
        writer.key("push_token")
        writer.value(pushToken)
        writer.key("updated_at")
        writer.value(updatedAt)
        writer.endObject()
    }
}
