/// A user's own limits (what an admin set; a resource not in it follows
/// the deployment's default) and what the user has of each resource now.
package struct UserQuota: Sendable, Equatable {
    package let overrides: [UserResource: Int]
    package let usage: [UserResource: Int]

    package init(overrides: [UserResource: Int], usage: [UserResource: Int]) {
        self.overrides = overrides
        self.usage = usage
    }
}
