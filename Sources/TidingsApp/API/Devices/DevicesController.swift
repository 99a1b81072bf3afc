import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// A user's devices: registration (an upsert by push token), reads, updates,
/// deletion, and removal of tokens a push gateway reported dead. Push tokens
/// are never logged, only device ids.
struct DevicesController: Sendable {
    let devices: DeviceStore
    let pushes: PushStore
    let authenticator: Authenticator
    /// Early SSRF feedback on a web device's endpoint.
    let addresses: TargetAddressPolicy

    func register(on router: inout Router) {
        router.post("/v1/devices", use: registerDevice)
        router.get("/v1/devices", use: listDevices)
        router.post("/v1/devices/invalidations", use: invalidateDevices)
        router.get("/v1/devices/{id}", use: showDevice)
        router.patch("/v1/devices/{id}", use: updateDevice)
        router.delete("/v1/devices/{id}", use: deleteDevice)
        router.get("/v1/devices/{id}/pushes", use: listPushes)
    }

    @Sendable func listPushes(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        guard let page = try pushes.list(deviceID: try context.uuidParameter("id"), userID: userID, try request.pageRequest()) else {
            throw Self.deviceNotFound
        }
        return .json(ListResponse(page, PushRepresentation.init))
    }

    @Sendable func registerDevice(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let body = try request.decodeJSON(RegisterDeviceBody.self)
        if let subscription = body.registration.webPush {
            try addresses.check(host: subscription.host, field: "push_subscription.endpoint")
        }
        let (device, created) = try HTTPError.mappingLimits { try devices.register(userID: userID, body.registration) }
        if created {
            context.logger.info("device registered", metadata: ["user.id": userID.canonicalString, "device.id": device.id.canonicalString])
        }
        return .json(DeviceRepresentation(device), status: created ? .created : .ok)
    }

    @Sendable func listDevices(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let page = try devices.list(userID: userID, try request.pageRequest())
        return .json(ListResponse(page, DeviceRepresentation.init))
    }

    @Sendable func showDevice(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        guard let device = try devices.device(id: try context.uuidParameter("id"), userID: userID) else { throw Self.deviceNotFound }
        return .json(DeviceRepresentation(device))
    }

    @Sendable func updateDevice(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let id = try context.uuidParameter("id")
        let body = try request.decodeJSON(UpdateDeviceBody.self)
        switch try devices.update(id: id, userID: userID, body.changes) {
        case .notFound:
            throw Self.deviceNotFound
        case .platformChangeRefused(let from, let to):
            throw HTTPError.field(
                "platform",
                "cannot change from \(from.rawValue) to \(to.rawValue): a web device is a browser's "
                    + "push subscription, the others an app's push token; register the device anew and delete this one")
        case .updated(let device):
            return .json(DeviceRepresentation(device))
        }
    }

    @Sendable func deleteDevice(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let id = try context.uuidParameter("id")
        guard try devices.delete(id: id, userID: userID) else { throw Self.deviceNotFound }
        context.logger.info("device deleted", metadata: ["user.id": userID.canonicalString, "device.id": id.canonicalString])
        return .noContent()
    }

    @Sendable func invalidateDevices(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let body = try request.decodeJSON(InvalidateDevicesBody.self)
        let removed = try devices.invalidate(userID: userID, pushTokens: body.pushTokens)
        context.logger.info(
            "devices invalidated",
            metadata: [
                "user.id": userID.canonicalString,
                "devices.reported": "\(body.pushTokens.count)",
                "devices.removed": "\(removed.count)",
            ])
        return .json(RemovedDevicesRepresentation(removed: removed.map(DeviceRepresentation.init)))
    }

    private static let deviceNotFound = HTTPError(.notFound, detail: "There is no device with this id.")
}
