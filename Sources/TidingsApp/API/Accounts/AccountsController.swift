import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// Users and API keys. The admin manages users and keys; a user sees itself
/// through `GET /v1/me`.
struct AccountsController: Sendable {
    let accounts: AccountStore
    let authenticator: Authenticator
    /// The deployment's per-user limits, shown where a user has none of its own.
    let defaultLimits: UserLimits

    func register(on router: inout Router) {
        router.post("/v1/users", use: createUser)
        router.get("/v1/users", use: listUsers)
        router.get("/v1/users/{id}", use: showUser)
        router.patch("/v1/users/{id}", use: updateUser)
        router.delete("/v1/users/{id}", use: deleteUser)
        router.post("/v1/users/{id}/keys", use: issueKey)
        router.get("/v1/users/{id}/keys", use: listKeys)
        router.delete("/v1/users/{id}/keys/{key_id}", use: revokeKey)
        router.get("/v1/me", use: me)
    }

    @Sendable func createUser(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let body = try request.decodeJSON(CreateUserBody.self)
        let (user, key) = try accounts.createUser(name: body.name, keyName: body.keyName)
        context.logger.info("user created", metadata: ["user.id": user.id.canonicalString, "api_key.prefix": key.key.prefix])
        return .json(
            CreatedUserRepresentation(user: UserRepresentation(user), apiKey: key.token, key: APIKeyRepresentation(key.key)),
            status: .created
        )
    }

    @Sendable func listUsers(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let page = try accounts.listUsers(try request.pageRequest())
        return .json(ListResponse(page, UserRepresentation.init))
    }

    @Sendable func showUser(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        return .json(try userDetail(try context.uuidParameter("id")))
    }

    /// Sets or clears the user's own limits; answers like `showUser`.
    @Sendable func updateUser(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let id = try context.uuidParameter("id")
        let body = try request.decodeJSON(UpdateUserBody.self)
        guard try accounts.setLimits(userID: id, body.limits) else { throw Self.userNotFound }
        if !body.limits.isEmpty {
            var metadata = ["user.id": id.canonicalString]
            for (resource, value) in body.limits {
                metadata["limits.\(resource.rawValue)"] = value.map { String($0) } ?? "default"
            }
            context.logger.info("user limits set", metadata: metadata)
        }
        return .json(try userDetail(id))
    }

    @Sendable func deleteUser(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let id = try context.uuidParameter("id")
        guard try accounts.deleteUser(id: id) else { throw Self.userNotFound }
        authenticator.forget(userID: id)
        context.logger.info("user deleted", metadata: ["user.id": id.canonicalString])
        return .noContent()
    }

    @Sendable func issueKey(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let id = try context.uuidParameter("id")
        let body = request.body.isEmpty ? IssueKeyBody(name: nil) : try request.decodeJSON(IssueKeyBody.self)
        guard let issued = try HTTPError.mappingLimits({ try accounts.issueKey(userID: id, name: body.name) }) else {
            throw Self.userNotFound
        }
        context.logger.info("api key issued", metadata: ["user.id": id.canonicalString, "api_key.prefix": issued.key.prefix])
        return .json(IssuedKeyRepresentation(apiKey: issued.token, key: APIKeyRepresentation(issued.key)), status: .created)
    }

    @Sendable func listKeys(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let id = try existingUser(try context.uuidParameter("id")).id
        let keys = try accounts.listKeys(userID: id).map(APIKeyRepresentation.init)
        return .json(ListResponse(data: keys, nextCursor: nil))
    }

    @Sendable func revokeKey(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let userID = try context.uuidParameter("id")
        let keyID = try context.uuidParameter("key_id")
        guard let key = try accounts.revokeKey(userID: userID, keyID: keyID) else {
            throw HTTPError(.notFound, detail: "The user has no API key with this id.")
        }
        authenticator.forget(keyID: key.id)
        context.logger.info("api key revoked", metadata: ["user.id": userID.canonicalString, "api_key.prefix": key.prefix])
        return .json(APIKeyRepresentation(key))
    }

    @Sendable func me(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        .json(UserRepresentation(try existingUser(try authenticator.requireUser(request))))
    }

    /// The user with its limits and usage. Two reads, not one snapshot: a
    /// count may be a moment newer than the user row, which nothing here
    /// relies on.
    private func userDetail(_ id: UUID) throws -> UserDetailRepresentation {
        let user = try existingUser(id)
        guard let quota = try accounts.quota(userID: id) else { throw Self.userNotFound }
        return UserDetailRepresentation(user, quota: quota, defaults: defaultLimits)
    }

    private func existingUser(_ id: UUID) throws -> User {
        guard let user = try accounts.user(id: id) else { throw Self.userNotFound }
        return user
    }

    private static let userNotFound = HTTPError(.notFound, detail: "There is no user with this id.")
}
