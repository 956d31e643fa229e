import Foundation
import LayoutEngine
import Testing
import ZeroMQ
@testable import LayoutServer

/// Every op over real sockets, with both envelope kinds.
@Suite(.serialized) struct FrontSocketTests {
    @Test(arguments: Topology.all) func pingAnswersReqAndDealerClientsWithTheirEnvelopes(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let req = try daemon.req()
        _ = try req.send(#"{"v":1,"id":"r1","op":"ping"}"#)
        let reqReply = try TestDaemon.object(try #require(try req.receiveBytes()))
        #expect(reqReply.ok)
        #expect(reqReply["id"] as? String == "r1")
        #expect((reqReply.result["layouts"] as? [String])?.contains("mosaic") == true)

        // A DEALER with a two-frame envelope of its own gets both frames back unchanged.
        let dealer = try daemon.dealer()
        _ = try dealer.send(multipart: [Array("route-a".utf8), [], Array(#"{"v":1,"id":42,"op":"ping"}"#.utf8)])
        let frames = try #require(try dealer.receiveMultipart())
        #expect(frames.count == 3)
        #expect(frames[0] == Array("route-a".utf8))
        #expect(frames[1].isEmpty)
        let reply = try TestDaemon.object(frames[2])
        #expect(reply["id"] as? Int == 42)
        #expect(reply.ok)
    }

    @Test(arguments: Topology.all) func layoutReturnsTheEnginesFramesInBothFormats(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let expected = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 375, height: 800), parameters: .mosaic(MosaicParameters()), sections: [Section(count: 10)]))
        var frames: [Rect] = []
        expected.forEachElement { frames.append($0.frame) }

        let objects = try daemon.call(mosaicJob(op: "layout", key: nil, count: 10))
        #expect(objects.ok)
        let attributes = try #require(objects.result["attributes"] as? [[String: Any]])
        #expect(attributes.count == 10)
        for (attribute, frame) in zip(attributes, frames) {
            #expect(attribute["kind"] as? String == "cell")
            #expect(attribute["x"] as? Double == frame.x && attribute["y"] as? Double == frame.y)
            #expect(attribute["width"] as? Double == frame.width && attribute["height"] as? Double == frame.height)
        }
        #expect((objects.result["contentSize"] as? [String: Any])?["height"] as? Double == 1005)

        let columns = try daemon.call(mosaicJob(op: "layout", key: nil, count: 10, extra: #","format":"columns""#))
        let table = try #require(columns.result["attributes"] as? [String: Any])
        #expect((table["y"] as? [Double]) == frames.map(\.y))
        #expect((table["width"] as? [Double]) == frames.map(\.width))
        #expect((table["item"] as? [Int]) == Array(0..<10))
    }

    @Test(arguments: Topology.all) func largeRepliesSentFromTheEncodersBufferArriveWhole(_ topology: Topology) throws {
        // 5,000 frames make a reply of several hundred KB, over the zero-copy threshold.
        let daemon = try TestDaemon(topology)
        let count = 5_000
        let expected = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 375, height: 800), parameters: .mosaic(MosaicParameters()), sections: [Section(count: count)]))
        var frames: [Rect] = []
        expected.forEachElement { frames.append($0.frame) }
        for format in ["objects", "columns"] {
            let dealer = try daemon.dealer()
            _ = try dealer.send(multipart: [[], Array(mosaicJob(op: "layout", key: nil, count: count, extra: #","format":"\#(format)""#).utf8)])
            let reply = try #require(try dealer.receiveMultipart())
            #expect(reply[reply.count - 1].count > ReplyBody.zeroCopyThreshold)
            let object = try TestDaemon.object(reply[reply.count - 1])
            if format == "objects" {
                let attributes = try #require(object.result["attributes"] as? [[String: Any]])
                #expect(attributes.compactMap { $0["y"] as? Double } == frames.map(\.y))
                #expect(attributes.compactMap { $0["x"] as? Double } == frames.map(\.x))
            } else {
                let table = try #require(object.result["attributes"] as? [String: Any])
                #expect((table["height"] as? [Double]) == frames.map(\.height))
                #expect((table["x"] as? [Double]) == frames.map(\.x))
            }
        }
    }

    @Test(arguments: Topology.all) func preparedLayoutAnswersQueriesBoundsListAndDrop(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let prepared = try daemon.call(mosaicJob(key: "feed", count: 10))
        #expect(prepared.ok)
        #expect(prepared.result["version"] as? Int == 1)

        // The check example of LAYOUTS.md: the first three frames are above y 300.
        let rect = try daemon.call(#"{"v":1,"id":"q","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":300}}"#)
        let inRect = try #require(rect.result["attributes"] as? [[String: Any]])
        #expect(inRect.map { $0["item"] as? Int } == [0, 1, 2])

        let items = try daemon.call(#"{"v":1,"id":"q2","op":"query","layout":"feed","items":[[0,9],[0,3]]}"#)
        let byItem = try #require(items.result["attributes"] as? [[String: Any]])
        // Answers come in layout order, whatever order the items were asked in.
        #expect(byItem.map { $0["item"] as? Int } == [3, 9])
        #expect(byItem.map { $0["y"] as? Double } == [403, 805])

        // Scrolling (origin only) does not invalidate; a size change does and bumps the version.
        let scrolled = try daemon.call(#"{"v":1,"id":"b1","op":"bounds","layout":"feed","bounds":{"x":0,"y":500,"width":375,"height":800}}"#)
        #expect(scrolled.result["invalidated"] as? Bool == false)
        #expect(scrolled.result["version"] as? Int == 1)
        let resized = try daemon.call(#"{"v":1,"id":"b2","op":"bounds","layout":"feed","bounds":{"width":500,"height":800}}"#)
        #expect(resized.result["invalidated"] as? Bool == true)
        #expect(resized.result["version"] as? Int == 2)

        let list = try daemon.call(#"{"v":1,"id":"l","op":"list"}"#)
        let entries = try #require(list.result["layouts"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["layout"] as? String == "feed")
        #expect(entries.first?["items"] as? Int == 10)

        let dropped = try daemon.call(#"{"v":1,"id":"d","op":"drop","layout":"feed"}"#)
        #expect(dropped.ok)
        let gone = try daemon.call(#"{"v":1,"id":"q3","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":1,"height":1}}"#)
        #expect(gone.errorCode == "unknown_layout")
    }

    @Test(arguments: Topology.all) func opsOnOneKeyRunInArrivalOrder(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology) { $0.workers = 2 }
        let dealer = try daemon.dealer()
        // A large prepare followed at once by a query on the same key: the query must see the prepared layout.
        let big = mosaicJob(key: "order", count: 300_000)
        _ = try dealer.send(multipart: [[], Array(big.utf8)])
        _ = try dealer.send(multipart: [[], Array(#"{"v":1,"id":"after","op":"query","layout":"order","items":[[0,299999]]}"#.utf8)])
        var replies: [String: [String: Any]] = [:]
        for _ in 0..<2 {
            let frames = try #require(try dealer.receiveMultipart())
            let reply = try TestDaemon.object(frames[frames.count - 1])
            replies[reply["id"] as? String ?? "?"] = reply
        }
        #expect(replies["prepare-1"]?.ok == true)
        #expect(replies["after"]?.ok == true, "the query ran after the prepare it followed")
    }
}
