/// What the admin registers: one app on one push service.
package struct NewPushApp: Sendable, Equatable {
    package var appID: String
    package var credentials: PushAppCredentials

    package init(appID: String, credentials: PushAppCredentials) {
        self.appID = appID
        self.credentials = credentials
    }
}
