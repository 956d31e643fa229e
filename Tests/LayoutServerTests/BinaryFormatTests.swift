import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

/// `"format": "binary"` (PROTOCOL.md §6) and binary frames after a request's body (§2), over real sockets.
@Suite(.serialized) struct BinaryFormatTests {
    /// A waterfall with headers, footers and decorations in three sections: every kind of element.
    private static func job(op: String, key: String? = nil, extra: String = "") -> String {
        let layout = key.map { #","layout":"\#($0)""# } ?? ""
        return #"{"v":1,"id":"\#(op)","op":"\#(op)"\#(layout),"bounds":{"width":375,"height":700},"spec":{"type":"waterfall","columns":3,"header":30,"footer":12},"decorations":{"sectionBackground":true},"sections":[{"heights":[40,90,25,60,70]},{"count":0},{"heights":[10,20,30,40,50,60,70,80]}]\#(extra)}"#
    }

    /// One request, its reply's frames after the empty delimiter.
    private static func frames(_ body: String, attachments: [[UInt8]] = [], on socket: Socket) throws -> [[UInt8]] {
        _ = try socket.send(multipart: [[], Array(body.utf8)] + attachments)
        guard let frames = try socket.receiveMultipart() else { throw TestFailure("no reply to \(body.prefix(120))") }
        #expect(frames.first?.isEmpty == true, "the reply carries the request's envelope")
        return Array(frames.dropFirst())
    }

    /// The binary reply's columns by name, checked against the header's description.
    private static func columns(of frames: [[UInt8]]) throws -> (header: [String: Any], columns: [String: [Double]]) {
        let header = try TestDaemon.object(try #require(frames.first))
        let attributes = try #require(header.result["attributes"] as? [String: Any])
        #expect(attributes["format"] as? String == "binary")
        #expect(attributes["kinds"] as? [String] == ["cell", "header", "footer", "decoration"])
        let count = try #require(attributes["count"] as? Int)
        let described = try #require(attributes["columns"] as? [[String: Any]])
        #expect(described.count == frames.count - 1, "one frame per described column")
        var columns: [String: [Double]] = [:]
        for (index, column) in described.enumerated() {
            let name = try #require(column["name"] as? String)
            let type = try #require(column["type"] as? String)
            #expect(column["frame"] as? Int == index + 1)
            #expect(column["count"] as? Int == count)
            #expect(column["byteOrder"] as? String == "little")
            let bytes = frames[index + 1]
            let size = ["uint8": 1, "int32": 4, "float64": 8][type] ?? 0
            #expect(bytes.count == count * size, "\(name): \(bytes.count) bytes for \(count) values of \(type)")
            columns[name] = (0..<count).map { i in
                switch type {
                case "uint8": return Double(bytes[i])
                case "int32": return Double(Int32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i * 4, as: Int32.self) }))
                default: return Double(bitPattern: UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) }))
                }
            }
        }
        return (header, columns)
    }

    /// The same answer in the columns format, as numbers (kinds as their binary codes).
    private static func expectSame(_ binary: [String: [Double]], as json: [String: Any]) throws {
        let table = try #require(json.result["attributes"] as? [String: Any])
        let kinds = try #require(table["kind"] as? [String])
        #expect(binary["kind"] == kinds.map { Double(["cell", "header", "footer", "decoration"].firstIndex(of: $0) ?? -1) })
        for name in ["section", "item", "x", "y", "width", "height", "zIndex"] {
            let expected = (table[name] as? [NSNumber])?.map(\.doubleValue)
            #expect(binary[name] == expected, "column \(name)")
        }
        #expect(Set(binary.keys) == Set(table.keys), "the same columns")
    }

    @Test(arguments: Topology.all) func binaryRepliesCarryTheColumnsAsFrames(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let socket = try daemon.dealer()

        let layout = try Self.columns(of: try Self.frames(Self.job(op: "layout", extra: #","format":"binary""#), on: socket))
        let expected = try daemon.call(Self.job(op: "layout", extra: #","format":"columns""#))
        #expect(layout.header.result["counts"] as? NSDictionary == expected.result["counts"] as? NSDictionary)
        #expect(layout.columns["kind"]?.contains(3) == true, "decorations are listed")
        #expect(layout.header.result["contentSize"] as? NSDictionary == expected.result["contentSize"] as? NSDictionary)
        try Self.expectSame(layout.columns, as: expected)

        // A prepare lists nothing unless asked: one frame, as before.
        let prepared = try Self.frames(Self.job(op: "prepare", key: "wall", extra: #","format":"binary""#), on: socket)
        #expect(prepared.count == 1)
        #expect(try TestDaemon.object(prepared[0]).result["attributes"] == nil)

        // A rect with pinning adds the zIndex column, as the columns format does.
        let pinned = #","layout":"wall","rect":{"x":0,"y":150,"width":375,"height":300},"pin":{"headers":true}"#
        let query = try Self.columns(of: try Self.frames(#"{"id":"q","op":"query""# + pinned + #","format":"binary"}"#, on: socket))
        try Self.expectSame(query.columns, as: try daemon.call(#"{"id":"q","op":"query""# + pinned + #","format":"columns"}"#))
        #expect(query.columns["zIndex"] != nil)
        #expect(query.header.result["version"] as? Int == 1)

        // Items, and an empty selection: columns of no values, still one frame each.
        let items = try Self.columns(of: try Self.frames(#"{"id":"i","op":"query","layout":"wall","items":[[2,7],[0,1]],"format":"binary"}"#, on: socket))
        #expect(items.columns["item"] == [1, 7])
        #expect(items.columns["section"] == [0, 2])
        let none = try Self.frames(#"{"id":"n","op":"query","layout":"wall","rect":{"x":0,"y":99999,"width":10,"height":10},"format":"binary"}"#, on: socket)
        #expect(none.count == 8 && none.dropFirst().allSatisfy(\.isEmpty))

        // Errors stay single JSON frames.
        let missing = try Self.frames(#"{"id":"m","op":"query","layout":"nope","rect":{"x":0,"y":0,"width":1,"height":1},"format":"binary"}"#, on: socket)
        #expect(missing.count == 1)
        #expect(try TestDaemon.object(missing[0]).errorCode == "unknown_layout")
    }

    @Test(arguments: Topology.all) func theEnginesOwnColumnsArriveAsTheColumnsFormatSaysThem(_ topology: Topology) throws {
        // One section of cells only: x, y, width and height leave the layout's storage uncopied.
        let daemon = try TestDaemon(topology)
        let socket = try daemon.dealer()
        let binary = try Self.columns(of: try Self.frames(mosaicJob(op: "layout", key: nil, count: 3000, extra: #","format":"binary""#), on: socket))
        try Self.expectSame(binary.columns, as: try daemon.call(mosaicJob(op: "layout", key: nil, count: 3000, extra: #","format":"columns""#)))
        #expect(binary.columns["x"]?.count == 3000)
    }

    @Test func binaryHeightsAfterTheBodyLayOutAsTheirJSONValues() throws {
        let daemon = try TestDaemon(.single)
        let socket = try daemon.dealer()
        let heights: [Double] = [40, 90, 25, 60, 70]
        let frame = heights.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
        let body = #"{"id":"b","op":"layout","format":"columns","bounds":{"width":375,"height":700},"spec":{"type":"waterfall","columns":2},"sections":[{"heights":{"frame":1},"aspectRatios":{"frame":2}}]}"#
        let ratios = [1.0, 2, 0.5, 1, 3].flatMap { (value: Double) in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
        let binary = try TestDaemon.object(try Self.frames(body, attachments: [frame, ratios], on: socket)[0])
        let json = try daemon.call(#"{"id":"j","op":"layout","format":"columns","bounds":{"width":375,"height":700},"spec":{"type":"waterfall","columns":2},"sections":[{"heights":[40,90,25,60,70],"aspectRatios":[1,2,0.5,1,3]}]}"#)
        #expect(binary.ok && json.ok)
        #expect(binary.result["attributes"] as? NSDictionary == json.result["attributes"] as? NSDictionary)
    }

    @Test func badBinaryFramesAreInvalidRequestsAtTheFieldThatNamedThem() throws {
        let daemon = try TestDaemon(.single)
        let socket = try daemon.dealer()
        func reply(_ section: String, _ attachments: [[UInt8]]) throws -> [String: Any] {
            let body = #"{"id":"x","op":"prepare","layout":"k","bounds":{"width":375,"height":700},"spec":{"type":"waterfall"},"sections":["# + section + "]}"
            let frames = try Self.frames(body, attachments: attachments, on: socket)
            #expect(frames.count == 1)
            return try TestDaemon.object(frames[0])
        }
        func bytes(_ values: [Double]) -> [UInt8] { values.flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } } }
        let cases: [(section: String, attachments: [[UInt8]], path: String)] = [
            (#"{"heights":{"frame":2}}"#, [bytes([1])], "sections[0].heights.frame"),
            (#"{"heights":{"frame":0}}"#, [bytes([1])], "sections[0].heights.frame"),
            (#"{"heights":{"frame":1.5}}"#, [bytes([1])], "sections[0].heights.frame"),
            (#"{"heights":{"frame":1,"type":"f32"}}"#, [bytes([1])], "sections[0].heights.type"),
            (#"{"heights":{"frame":1}}"#, [[1, 2, 3]], "sections[0].heights"),
            (#"{"heights":{"frame":1}}"#, [bytes([1, .infinity])], "sections[0].heights[1]"),
            (#"{"heights":{"frame":1}}"#, [bytes([1, 2, .nan])], "sections[0].heights[2]"),
            (#"{"heights":{"frame":1}}"#, [bytes([-1])], "sections[0].heights[0]"),
            (#"{"aspectRatios":{"frame":1}}"#, [bytes([0])], "sections[0].aspectRatios[0]"),
            (#"{"count":3,"heights":{"frame":1}}"#, [bytes([1, 2])], "sections[0].count"),
            (#"{"heights":{"frame":1},"widths":[1]}"#, [bytes([1, 2])], "sections[0].widths"),
            (#"{"heights":{"frame":1}}"#, [], "sections[0].heights.frame"),
        ]
        for (section, attachments, path) in cases {
            let answer = try reply(section, attachments)
            #expect(answer.errorCode == "invalid_request", "\(section)")
            #expect(answer.errorPath == path, "\(section): \(answer)")
        }
        // The connection keeps working, and the key was never made.
        #expect(try daemon.call(#"{"id":"p","op":"ping"}"#, on: socket).ok)
        #expect((try daemon.call(#"{"id":"l","op":"list"}"#, on: socket).result["layouts"] as? [Any])?.isEmpty == true)
    }

    @Test func aBrokerRefusesFramesAfterTheBodyAndKeepsServing() throws {
        let daemon = try TestDaemon(.cluster(workers: 1))
        let socket = try daemon.dealer()
        let body = #"{"id":"b","op":"prepare","layout":"k","bounds":{"width":375,"height":700},"spec":{"type":"waterfall"},"sections":[{"heights":{"frame":1}}]}"#
        let frames = try Self.frames(body, attachments: [[0, 0, 0, 0, 0, 0, 0, 0]], on: socket)
        let answer = try TestDaemon.object(try #require(frames.first))
        #expect(frames.count == 1)
        #expect(answer.errorCode == "invalid_request")
        #expect(answer["id"] as? String == "b")
        #expect(try daemon.call(#"{"id":"p","op":"ping"}"#, on: socket).ok)
    }
}
