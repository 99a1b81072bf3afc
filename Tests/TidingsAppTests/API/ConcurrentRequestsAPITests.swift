import Foundation
import Testing
import TidingsTestSupport

/// Concurrent requests share batches (group commit for device registration,
/// one query for simultaneous watch and badge reads); each must still get
/// exactly what it would get alone, and never another user's data.
@Suite struct ConcurrentRequestsAPITests {
    private static let concurrency = 24

    @Test func concurrentRegistrationsOfOneTokenMakeOneDevice() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let responses = try await withThrowingTaskGroup(of: APITestServer.Response.self) { group in
            for index in 0..<Self.concurrency {
                group.addTask {
                    try await server.send(
                        "POST", "/v1/devices", token: key,
                        json: [
                            "platform": "ios", "push_token": "shared-token", "name": "phone \(index)",
                        ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.filter { $0.status == 201 }.count == 1, "exactly one registration creates the device")
        #expect(responses.filter { $0.status == 200 }.count == Self.concurrency - 1)
        let ids = Set(try responses.map { try $0.object()["id"] as? String })
        #expect(ids.count == 1)
        let list = try await server.send("GET", "/v1/devices", token: key)
        #expect(try list.items().count == 1)
    }

    @Test func concurrentIdenticalRegistrationsMakeOneDeviceAndAnswerAlike() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let responses = try await withThrowingTaskGroup(of: APITestServer.Response.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask {
                    try await server.send(
                        "POST", "/v1/devices", token: key,
                        json: [
                            "platform": "android", "push_token": "same-token", "name": "browser", "locale": "fr",
                        ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.filter { $0.status == 201 }.count == 1)
        #expect(responses.filter { $0.status == 200 }.count == Self.concurrency - 1)
        let devices = try responses.map { try $0.object() }
        #expect(Set(devices.map { $0["id"] as? String }).count == 1)
        #expect(devices.allSatisfy { $0["name"] as? String == "browser" && $0["locale"] as? String == "fr" })
        let list = try await server.send("GET", "/v1/devices", token: key)
        #expect(try list.items().count == 1)
    }

    @Test func concurrentRegistrationsOfSeveralUsersStayApart() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let users = [try await server.createUser(), try await server.createUser(), try await server.createUser()]

        let responses = try await withThrowingTaskGroup(of: (Int, Int, APITestServer.Response).self) { group in
            for index in 0..<Self.concurrency {
                let user = index % users.count
                group.addTask {
                    let response = try await server.send(
                        "POST", "/v1/devices", token: users[user].key,
                        json: [
                            // Each user its own tokens, registered at once (one token
                            // belongs to one device, whoever registered it last).
                            "platform": "android", "push_token": "token-\(user)-\(index / users.count)", "locale": "en-GB",
                        ])
                    return (user, index / users.count, response)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.2.status == 201 }, "every (user, token) pair is new")
        for (user, token, response) in responses {
            #expect(try response.object()["push_token"] as? String == "token-\(user)-\(token)")
        }
        for user in users {
            let list = try await server.send("GET", "/v1/devices?limit=100", token: user.key)
            #expect(try list.items().count == Self.concurrency / users.count)
        }
        let allIDs = responses.compactMap { try? $0.2.object()["id"] as? String }
        #expect(Set(allIDs).count == Self.concurrency, "one device per user and token")
    }

    @Test func concurrentReadsOfSeveralUsersStayApart() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        var owners: [(key: String, watch: String)] = []
        for _ in 0..<3 {
            let (_, key) = try await server.createUser()
            let created = try await server.send(
                "POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/page-\(owners.count)"])
            #expect(created.status == 201, "\(created.text)")
            owners.append((key, try #require(try created.object()["id"] as? String)))
        }
        let snapshot = owners

        let results = try await withThrowingTaskGroup(of: (Int, Int, Int, String?, Int).self) { group in
            for index in 0..<(Self.concurrency * 2) {
                let reader = index % snapshot.count
                let target = (index / snapshot.count) % snapshot.count
                group.addTask {
                    let watch = try await server.send("GET", "/v1/watches/\(snapshot[target].watch)", token: snapshot[reader].key)
                    let badge = try await server.send("GET", "/v1/badge", token: snapshot[reader].key)
                    #expect(badge.status == 200)
                    return (reader, target, watch.status, try? watch.object()["id"] as? String, badge.status)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (reader, target, status, id, _) in results {
            if reader == target {
                #expect(status == 200 && id == snapshot[target].watch)
            } else {
                #expect(status == 404, "a watch of another user is not found")
            }
        }
    }
}
