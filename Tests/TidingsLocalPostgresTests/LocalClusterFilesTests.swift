import Foundation
import Testing
import TidingsTestSupport

@testable import TidingsLocalPostgres

/// Paths and file-system preparation of the local cluster, without starting a server.
@Suite struct LocalClusterFilesTests {
    @Test func socketDirectoryFallsBackToTmpForLongPaths() {
        let short = LocalClusterPaths(directory: "/var/lib/tidings/")
        #expect(short.root == "/var/lib/tidings")
        #expect(short.dataDirectory == "/var/lib/tidings/postgres")
        #expect(short.socketDirectory == "/var/lib/tidings/run" && !short.socketDirectoryIsFallback)

        let relative = LocalClusterPaths(directory: "data", currentDirectory: "/srv")
        #expect(relative.root == "/srv/data")

        let longDirectory = "/" + String(repeating: "d", count: 100)
        let long = LocalClusterPaths(directory: longDirectory)
        #expect(long.socketDirectoryIsFallback)
        #expect(long.socketDirectory.hasPrefix("/tmp/tidings-pg-") && long.socketDirectory.count == 32)
        #expect(LocalClusterPaths(directory: longDirectory).socketDirectory == long.socketDirectory)
        #expect(LocalClusterPaths(directory: longDirectory + "x").socketDirectory != long.socketDirectory)
    }

    @Test func grantsTraversalOnlyWhereTheServerAccountIsBlocked() throws {
        try TemporaryDirectory.with(prefix: "tidings-fs") { directory in
            let closed = directory + "/closed"
            let open = closed + "/open"
            try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: closed)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: open)
            // An account that owns nothing here, so only "others" bits apply to it.
            let stranger = ServerAccount(userID: 54_321, groupID: 54_321, switchToUser: nil)

            let granted = try ClusterFileSystem.grantTraversal(downTo: open, for: stranger)
            #expect(granted == [closed])
            let permissions = try #require(try FileManager.default.attributesOfItem(atPath: closed)[.posixPermissions] as? Int)
            #expect(permissions == 0o701)
            #expect(try ClusterFileSystem.grantTraversal(downTo: open, for: stranger) == [])
        }
    }
}
