import Foundation
import LayoutEngine
import Testing
@testable import LayoutWire

private func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

private func number(_ value: Any?) -> Double? {
    if let number = value as? NSNumber { return number.doubleValue }
    return value as? Double
}

@Suite struct ReplyEnvelopeTests {
    @Test func wrapsAResult() throws {
        let body = ReplyEncoder.success(id: .string("req-1"), result: BoundsResult(invalidated: true, version: 3, contentSize: Size(width: 375, height: 1200.5)))
        #expect(String(decoding: body, as: UTF8.self) == #"{"v":1,"id":"req-1","ok":true,"result":{"invalidated":true,"version":3,"contentSize":{"width":375,"height":1200.5}}}"#)
    }

    @Test func echoesNumericIdsByTheirText() {
        let body = ReplyEncoder.success(id: .number("12345678901234567890"), result: DropResult(layout: "k", version: 2))
        #expect(String(decoding: body, as: UTF8.self) == #"{"v":1,"id":12345678901234567890,"ok":true,"result":{"layout":"k","version":2}}"#)
    }

    @Test func reportsAFailureWithItsPath() throws {
        let error = WireError(.invalidRequest, "must be a number >= 0, not -1.0", path: "sections[2].items[17].height")
        let parsed = try object(ReplyEncoder.failure(id: nil, error: error))
        #expect(parsed["id"] is NSNull)
        #expect((parsed["ok"] as? Bool) == false)
        let reported = try #require(parsed["error"] as? [String: Any])
        #expect(reported["code"] as? String == "invalid_request")
        #expect(reported["message"] as? String == error.message)
        #expect(reported["path"] as? String == "sections[2].items[17].height")
    }

    @Test func leavesOutAPathThatIsNotThere() throws {
        let parsed = try object(ReplyEncoder.failure(id: .string("x"), error: WireError(.busy, "queue full")))
        let reported = try #require(parsed["error"] as? [String: Any])
        #expect(reported["path"] == nil)
        #expect(reported["code"] as? String == "busy")
    }

    @Test func everyCodeHasTheContractsName() {
        #expect(WireError.Code.allCases.map(\.rawValue) == [
            "invalid_json", "invalid_request", "unknown_op", "unknown_layout", "invalid_update", "version_conflict",
            "too_large", "busy", "unavailable", "internal", "moved", "behind", "read_only",
        ])
    }

    @Test func mapsEngineErrors() {
        let engine = LayoutError(.invalidUpdate, "twice", path: "updates[3]")
        #expect(WireError(engine) == WireError(.invalidUpdate, "twice", path: "updates[3]"))
        #expect(WireError(LayoutError(.init(rawValue: "something_new"), "x")).code == .internal)
    }

    @Test func aDecodingErrorRoundTripsThroughAReply() throws {
        let body = Array(#"{"id":"q","op":"layout","bounds":{"width":1,"height":1},"spec":{"type":"list"},"sections":[{"heights":[1,-1]}]}"#.utf8)
        var reply: [UInt8] = []
        do throws(WireError) {
            _ = try RequestDecoder().decode(body)
        } catch {
            reply = ReplyEncoder.failure(id: RequestDecoder.requestID(in: body), error: error)
        }
        let parsed = try object(reply)
        #expect(parsed["id"] as? String == "q")
        #expect((parsed["error"] as? [String: Any])?["path"] as? String == "sections[0].heights[1]")
    }

    @Test func encodesPingAndList() throws {
        let ping = try object(ReplyEncoder.success(id: nil, result: PingResult(version: "0.1.0", uptimeSeconds: 12.5)))
        let pingResult = try #require(ping["result"] as? [String: Any])
        #expect(pingResult["layouts"] as? [String] == LayoutKind.allCases.map(\.rawValue))
        #expect(number(pingResult["uptimeSeconds"]) == 12.5)
        let list = ListResult(layouts: [.init(layout: "a\"b", version: 1, items: 10, bytes: 320), .init(layout: "c", version: 7, items: 0, bytes: 0)])
        let listResult = try #require(try object(ReplyEncoder.success(id: nil, result: list))["result"] as? [String: Any])
        let entries = try #require(listResult["layouts"] as? [[String: Any]])
        #expect(entries.map { $0["layout"] as? String } == ["a\"b", "c"])
        #expect(entries.map { number($0["bytes"]) } == [320, 0])
    }

    @Test func encodesPrepareWithAndWithoutAttributes() throws {
        let input = LayoutInput(bounds: Size(width: 100, height: 100), parameters: .defaults(for: .list), sections: [Section(count: 3)])
        let layout = try PreparedLayout.prepare(input)
        let bare = try #require(try object(ReplyEncoder.success(id: nil, result: PrepareResult(key: "k", version: 1, layout: layout, selection: nil, format: .objects)))["result"] as? [String: Any])
        #expect(Set(bare.keys) == ["layout", "version", "contentSize", "counts"])
        let full = try #require(try object(ReplyEncoder.success(id: nil, result: PrepareResult(key: "k", version: 2, layout: layout, selection: .all, format: .columns)))["result"] as? [String: Any])
        #expect(((full["attributes"] as? [String: Any])?["kind"] as? [String]) == ["cell", "cell", "cell"])
    }

    @Test func theZeroCopyBodyHoldsTheSameBytes() {
        let result = BoundsResult(invalidated: false, version: 9, contentSize: Size(width: 1, height: 2))
        let writer = ReplyEncoder.successBody(id: .number("5"), result: result)
        let (base, count) = writer.releaseBuffer()
        defer { base.deallocate() }
        #expect(Array(UnsafeRawBufferPointer(start: base, count: count)) == ReplyEncoder.success(id: .number("5"), result: result))
    }
}

@Suite struct EventEncodingTests {
    @Test func encodesAnInvalidation() throws {
        let event = EventEncoder.invalidated(layout: "feed-7", version: 4, reason: .bounds, contentSize: Size(width: 375, height: 9000))
        #expect(String(decoding: event.topic, as: UTF8.self) == "invalidated:feed-7")
        #expect(String(decoding: event.body, as: UTF8.self) == #"{"event":"invalidated","layout":"feed-7","version":4,"reason":"bounds","contentSize":{"width":375,"height":9000}}"#)
    }

    @Test func encodesABatchFromPreEncodedMembers() throws {
        var deletes = JSONWriter()
        deletes.write([ItemIndexPath(section: 0, item: 5), ItemIndexPath(section: 0, item: 2)])
        let members = [
            EncodedMember(name: "deletes", json: deletes.finish()),
            EncodedMember(name: "inserts", json: Array("[]".utf8)),
            EncodedMember(name: "moves", json: Array(#"[{"from":[0,1],"to":[1,0]}]"#.utf8)),
        ]
        let event = EventEncoder.batch(layout: "k", version: 2, members: members, contentSize: Size(width: 10, height: 20.5))
        #expect(String(decoding: event.topic, as: UTF8.self) == "batch:k")
        let parsed = try object(event.body)
        #expect(parsed["event"] as? String == "batch")
        #expect(number(parsed["version"]) == 2)
        #expect((parsed["deletes"] as? [[Any]])?.map { $0.compactMap(number) } == [[0, 5], [0, 2]])
        #expect((parsed["moves"] as? [[String: Any]])?.count == 1)
        #expect(number((parsed["contentSize"] as? [String: Any])?["height"]) == 20.5)
    }

    @Test func everyReasonHasTheContractsName() {
        #expect(InvalidationReason.allCases.map(\.rawValue) == ["bounds", "replaced", "dropped", "evicted", "lost"])
    }
}
