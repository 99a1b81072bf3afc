import TidingsDomain
import TidingsHTTPClient
import TidingsHTTPServer
import TidingsPostgres

/// Every `/v1` endpoint, with the stores and services they share.
struct APIRoutes {
    let database: PostgresClient
    let adminToken: String?
    let httpClient: HTTPClient
    let configuration: Configuration

    func register(on router: inout Router) {
        let accounts = AccountStore(database: database)
        let authenticator = Authenticator(adminToken: adminToken, accounts: accounts)
        AccountsController(accounts: accounts, authenticator: authenticator).register(on: &router)
        // devices: controller
        // watches: controller
        // webhooks: controller
    }
}
