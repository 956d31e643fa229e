import Foundation
import LayoutServer
import Testing
@testable import LayoutCluster

/// Workers a and b, `feed` prepared and changed once (version 2): the cluster, the frames a query of
/// `feed` answers, its owner and the other worker.
func feedChangedOnce(dropGraceNanos: Nanos = 0) throws -> (cluster: SimulatedCluster, frames: [UInt8], owner: String, other: String) {
    let cluster = SimulatedCluster(dropGraceNanos: dropGraceNanos)
    cluster.join("a")
    cluster.join("b")
    cluster.request(prepareBody("feed"))
    cluster.deliverAll()
    cluster.request(updateBody("feed", insert: "x"))
    cluster.deliverAll()
    let query = cluster.request(queryBody("feed", id: "same"))
    cluster.deliverAll()
    let frames = try #require(cluster.replyBytes(for: query))
    let owner = try #require(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name)
    return (cluster, frames, owner, owner == "a" ? "b" : "a")
}

extension SimulatedCluster {
    /// Whether worker `name`'s store keeps a layout under `key`.
    func keeps(_ name: String, _ key: String = "feed") -> Bool {
        workers[name]?.store.entry(forKey: LayoutKey(name: key)) != nil
    }
}

/// A list layout of `count` items with ids, under `key`.
func prepareBody(_ key: String, count: Int = 50, id: String = "p") -> String {
    let ids = (0..<count).map { "\"i\($0)\"" }.joined(separator: ",")
    let heights = (0..<count).map { String(10 + $0 % 7) }.joined(separator: ",")
    return #"{"v":1,"id":"\#(id)","op":"prepare","layout":"\#(key)","bounds":{"width":320,"height":600},"spec":{"type":"list","spacing":2},"sections":[{"ids":[\#(ids)],"heights":[\#(heights)]}]}"#
}

func updateBody(_ key: String, insert id: String, at index: Int = 0, requestID: String = "u") -> String {
    #"{"v":1,"id":"\#(requestID)","op":"update","layout":"\#(key)","updates":[{"insert":[0,\#(index)],"item":{"id":"\#(id)","height":33}}]}"#
}

func queryBody(_ key: String, id: String = "q") -> String {
    #"{"v":1,"id":"\#(id)","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":100000}}"#
}
