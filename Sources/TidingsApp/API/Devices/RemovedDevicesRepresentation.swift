import TidingsHTTPServer
import TidingsJSON

/// `POST /v1/devices/invalidations` answer: the devices that were removed.
struct RemovedDevicesRepresentation: Sendable {
    let removed: [DeviceRepresentation]
}

extension RemovedDevicesRepresentation: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("removed")
        writer.beginArray()
        for device in removed {
            device.write(to: &writer)
        }
        writer.endArray()
        writer.endObject()
    }
}
