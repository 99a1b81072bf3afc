import Foundation
import Testing
import TidingsHTTPClient
import TidingsSynchronization
import TidingsTestSupport

@Suite struct HTTPClientConnectionTests {
    @Test func sequentialRequestsReuseOneConnection() async throws {
        let server = try TestOriginServer { request in .text(request.path) }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        for index in 0..<10 {
            let response = try await client.execute(HTTPClientRequest(url: "\(server.baseURL)/\(index)"))
            #expect(response.text == "/\(index)")
        }

        #expect(server.receivedRequests == 10)
        #expect(server.acceptedConnections == 1)
    }

    @Test func hundredConcurrentRequestsAreInFlightTogether() async throws {
        let count = 100
        // Every response waits until all requests arrived, which only happens
        // if the client really has them all in flight at once.
        let arrivals = NSCondition()
        nonisolated(unsafe) var arrived = 0
        let server = try TestOriginServer { request in
            let deadline = Date(timeIntervalSinceNow: 20)
            let allArrived = arrivals.withLock {
                arrived += 1
                arrivals.broadcast()
                while arrived < count {
                    if !arrivals.wait(until: deadline) { break }
                }
                return arrived >= count
            }
            return allArrived ? .text(request.path) : .text("barrier timed out", status: 500)
        }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let responses = try await withThrowingTaskGroup(of: (Int, HTTPClientResponse).self) { group in
            for index in 0..<count {
                group.addTask {
                    (index, try await client.execute(HTTPClientRequest(url: "\(server.baseURL)/\(index)")))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }

        #expect(responses.count == count)
        for (index, response) in responses {
            #expect(response.status == 200)
            #expect(response.text == "/\(index)")
        }
    }

    @Test func perHostConnectionLimitQueuesTransfers() async throws {
        let server = try TestOriginServer { request in .text(request.path) }
        let client = try makeClient { $0.maxConnectionsPerHost = 2 }
        defer { client.stop(); server.stop() }

        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask { try await client.execute(HTTPClientRequest(url: "\(server.baseURL)/\(index)")).status }
            }
            for try await status in group {
                #expect(status == 200)
            }
        }

        #expect(server.acceptedConnections <= 2)
        #expect(server.receivedRequests == 20)
    }

    @Test func refusedConnectionsFailWithConnectionFailed() async throws {
        // Bind then close: nothing listens on the port any more.
        let listener = try LoopbackSocket.listen(backlog: 1)
        let port = try LoopbackSocket.port(of: listener)
        close(listener)
        let client = try makeClient()
        defer { client.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), on: client))

        #expect(error.code == .connectionFailed)
        #expect(!error.message.isEmpty)
    }

    @Test func tlsToAPlainServerFailsWithTLSFailure() async throws {
        let server = try TestOriginServer { _ in .text("plain") }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"), on: client))

        #expect(error.code == .tlsFailure)
    }
}
