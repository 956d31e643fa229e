import Foundation
import Testing
import ZeroMQ

/// The endpoints a newcomer gives a cluster (issue 14): the broker's `--back` and the workers' `--join`,
/// nothing else.
@Suite(.serialized) struct ClusterEndpointsTests {
    @Test func workersGivenOnlyTheBackEndpointJoinAndTheirEventsReachClients() throws {
        // Before: the broker bound its events intake at 5561 whatever its back port, the workers looked
        // at the back port + 1, and every request was answered `unavailable`.
        let cluster = try ProcessCluster(workers: 1, derivesEventsIn: true)
        let subscriber = try Socket(.sub, in: cluster.context)
        try subscriber.set(.receiveTimeout, 500)
        try subscriber.subscribe("")
        try subscriber.connect(cluster.events)

        let prepared = try cluster.call(mosaicJob(op: "prepare", key: "feed"))
        #expect(prepared.ok, "\(prepared)")
        // An event published by the worker arrives through the broker. A subscription takes a moment to
        // reach the broker, so bounds changes are sent until one is seen (bounded).
        var seen: [String: Any]?
        for width in 300..<360 where seen == nil {
            #expect(try cluster.call(#"{"id":"b","op":"bounds","layout":"feed","bounds":{"width":\#(width),"height":800}}"#).ok)
            if let frames = try subscriber.receiveMultipart(), frames.count == 2 {
                seen = try TestDaemon.object(frames[1])
            }
        }
        let event = try #require(seen, "no event reached the broker's events socket")
        #expect(event["layout"] as? String == "feed")
        #expect(event["reason"] as? String == "bounds")
    }
}
