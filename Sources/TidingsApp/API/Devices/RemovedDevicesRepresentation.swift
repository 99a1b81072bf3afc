/// `POST /v1/devices/invalidations` answer: the devices that were removed.
struct RemovedDevicesRepresentation: Encodable, Sendable {
    let removed: [DeviceRepresentation]
}
