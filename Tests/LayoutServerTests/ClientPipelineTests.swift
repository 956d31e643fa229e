import Foundation
import LayoutClient
import Testing
@testable import LayoutServer

/// `LayoutClient.pipeline` keeps a bounded number of requests in flight and reads while it sends, so a
/// pipeline far longer than the daemon's send high-water mark completes with every reply in order.
@Suite struct ClientPipelineTests {
    @Test(arguments: Topology.oneStore) func aPipelineLongerThanTheHighWaterMarkGetsEveryReply(_ topology: Topology) throws {
        // A daemon that queues at most 200 replies per client: a client that sent 3,000 requests before
        // reading would lose most of their replies.
        let daemon = try TestDaemon(topology) { $0.sendHighWaterMark = 200 }
        let client = try LayoutClient(endpoint: daemon.running.frontEndpoint, context: daemon.context, timeout: .seconds(20), directReads: .off)
        #expect(try client.prepare(key: "feed", jobBytes: Array(mosaicJob(key: nil, count: 50).utf8)).ok)
        let requests = try (0..<3_000).map { index in
            try client.makeRequest("query", fields: ["layout": "feed", "items": [[0, index % 50]]])
        }
        let replies = try client.pipeline(requests, maxInFlight: 100)
        #expect(replies.count == requests.count)
        #expect(zip(replies, requests).allSatisfy { $0.id == $1.id && $0.ok })
    }

    @Test func aBoundBelowOneIsRefusedLocally() throws {
        let daemon = try TestDaemon()
        let client = try LayoutClient(endpoint: daemon.running.frontEndpoint, context: daemon.context, timeout: .seconds(5))
        #expect(throws: ClientError.self) { try client.pipeline([client.makeRequest("ping")], maxInFlight: 0) }
    }
}
