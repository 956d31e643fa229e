import Foundation
import Testing
@testable import LayoutClient

/// Issue 32, finding 3: `LayoutClient` never returns a read older than a version of the key it has seen,
/// whatever path answers (decision E). Here the front is a single daemon restarted without a journal on
/// the same port, where the key, prepared again by another client, counts from 1 again.
@Suite(.serialized) struct ClientMonotonicReadTests {
    private static var job: [String: Any] {
        ["bounds": ["width": 375, "height": 800], "spec": ["type": "mosaic"], "sections": [["count": 10]]]
    }

    private static func daemon(at endpoint: String) throws -> TestDaemon {
        // The port was just let go by the daemon before: bound again within a bounded wait.
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try TestDaemon { $0.frontEndpoint = endpoint }
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    @Test func aReadOlderThanAVersionSeenIsNotReturned() throws {
        let endpoint = "tcp://127.0.0.1:\(try freePort())"
        var first: TestDaemon? = try Self.daemon(at: endpoint)
        let client = try LayoutClient(endpoint: endpoint, timeout: .seconds(1), directReads: .off)
        #expect(try client.prepare(key: "feed", job: Self.job).ok)
        let seen = try client.update(key: "feed", updates: [["delete": [0, 0]]])
        let version = try #require(seen.result.int("version"))
        #expect(try client.query(key: "feed", items: [ItemLocation(section: 0, item: 0)]).result.int("version") == version)

        first = nil
        let second = try Self.daemon(at: endpoint)
        let other = try LayoutClient(endpoint: endpoint, timeout: .seconds(5), directReads: .off)
        let again = try other.prepare(key: "feed", job: Self.job)
        let older = try #require(again.result.int("version"))
        #expect(older < version)

        // The daemon's copy is older than what this client saw: not returned, whoever answers.
        let read = try client.query(key: "feed", items: [ItemLocation(section: 0, item: 0)])
        #expect(!read.ok, "answered version \(read.result.int("version") ?? -1), older than \(version) seen")
        #expect(read.error?.code == .behind && read.error?.path == "minVersion")
        // A change this client makes is the key's state now, whatever its number.
        let changed = try client.update(key: "feed", updates: [["delete": [0, 0]]])
        #expect(changed.ok)
        #expect(try client.query(key: "feed", items: [ItemLocation(section: 0, item: 0)]).result.int("version") == changed.result.int("version"))
        _ = (first, second)
    }
}
