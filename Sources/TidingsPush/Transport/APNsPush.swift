package import FoundationEssentials

/// One push to one device through APNs: what goes into the request's path,
/// `apns-*` headers and body. The payload is the JSON the push engine wrote
/// (`{"aps": {...}}`); this layer checks its size, not its content.
package struct APNsPush: Sendable, Equatable {
    /// `apns-push-type`.
    package enum PushType: String, Sendable {
        /// A visible notification, a badge or a sound.
        case alert
        /// `content-available` only; APNs requires priority 5 for it.
        case background
    }

    /// `apns-priority`.
    package enum Priority: Int, Sendable {
        /// Delivered when it suits the device's power state.
        case powerConsiderate = 5
        /// Delivered at once.
        case immediate = 10
    }

    /// APNs refuses larger payloads (413 `PayloadTooLarge`).
    package static let maximumPayloadSize = 4096
    /// The longest `apns-collapse-id` APNs accepts, in bytes.
    package static let maximumCollapseIDLength = 64
    /// The longest device token accepted, in hexadecimal digits (tokens are
    /// 32 bytes today; Apple says they may grow).
    package static let maximumTokenLength = 400

    /// The device token, in hexadecimal.
    package var token: String
    package var pushType: PushType
    package var priority: Priority
    /// `apns-collapse-id`: a newer push with the same id replaces an older
    /// one not yet shown. At most 64 bytes.
    package var collapseID: String?
    /// `apns-expiration`: until when APNs keeps trying to deliver. Nil
    /// leaves the header out (APNs' own default); the epoch itself (`0`)
    /// means "now or never".
    package var expiration: Date?
    /// `apns-id`, which APNs echoes back; nil lets APNs choose one.
    package var id: UUID?
    /// The JSON payload, at most `maximumPayloadSize` bytes.
    package var payload: [UInt8]

    package init(
        token: String,
        pushType: PushType,
        priority: Priority,
        collapseID: String? = nil,
        expiration: Date? = nil,
        id: UUID? = nil,
        payload: [UInt8]
    ) {
        self.token = token
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.id = id
        self.payload = payload
    }
}
