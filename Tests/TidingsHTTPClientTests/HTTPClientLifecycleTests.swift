import Testing
import TidingsHTTPClient
import TidingsSynchronization
import TidingsTestSupport

@Suite struct HTTPClientLifecycleTests {
    @Test func shutdownFailsPendingRequests() async throws {
        let server = try TestOriginServer { _ in .hang }
        let client = try makeClient()
        defer { server.stop() }

        try await withThrowingTaskGroup(of: HTTPClientError?.self) { group in
            for _ in 0..<3 {
                group.addTask { await failure(of: HTTPClientRequest(url: server.baseURL), on: client) }
            }
            #expect(await server.requestsArrived(3))
            client.stop()
            for try await error in group {
                #expect(error?.code == .shutdown)
            }
        }
    }

    @Test func requestsAfterShutdownFailAndShutdownIsIdempotent() async throws {
        let client = try makeClient()
        client.stop()
        client.stop()

        let error = try #require(await failure(of: HTTPClientRequest(url: "http://127.0.0.1:9/"), on: client))

        #expect(error.code == .shutdown)
    }

    @Test func completionHandlerAPIDeliversTheResponse() async throws {
        let server = try TestOriginServer { _ in .text("via callback") }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let result = await withCheckedContinuation { continuation in
            client.execute(HTTPClientRequest(url: server.baseURL)) { continuation.resume(returning: $0) }
        }

        #expect(try result.get().text == "via callback")
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let server = try TestOriginServer { _ in .hang }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let task = Task { await failure(of: HTTPClientRequest(url: server.baseURL), on: client) }
        #expect(await server.requestsArrived(1))
        task.cancel()
        let error = await task.value

        #expect(error?.code == .cancelled)
    }

    @Test func clientCanBeShutDownFromItsOwnCompletionHandler() async throws {
        let server = try TestOriginServer { _ in .text("done") }
        let client = try makeClient()
        defer { server.stop() }

        let status = await withCheckedContinuation { continuation in
            client.execute(HTTPClientRequest(url: server.baseURL)) { result in
                client.stop()
                continuation.resume(returning: (try? result.get())?.status)
            }
        }
        let afterwards = try #require(await failure(of: HTTPClientRequest(url: server.baseURL), on: client))

        #expect(status == 200)
        #expect(afterwards.code == .shutdown)
    }
}
