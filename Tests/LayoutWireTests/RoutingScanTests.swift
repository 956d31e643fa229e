import LayoutEngine
import LayoutTestKit
import Testing
@testable import LayoutWire

/// The broker's reads of requests, replies and events, checked against what the decoder and encoders do.
@Suite struct RoutingScanTests {
    @Test(arguments: [
        (#"{"v":1,"id":"r1","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":1,"height":1}}"#, OperationName.query, "feed", RequestID.string("r1")),
        (#"{"layout":"a","sections":[{"count":3}],"op":"prepare","id":7}"#, .prepare, "a", .number("7")),
        // The last of duplicate members wins, as in the decoder.
        (#"{"op":"query","layout":"a","layout":"b","op":"drop","id":1,"id":"x"}"#, .drop, "b", .string("x")),
        // Escaped member names and values.
        (#"{"\u006fp":"upd\u0061te","l\u0061yout":"k\"ey","id":1.50}"#, .update, "k\"ey", .number("1.50")),
    ])
    func aRequestsRouteIsItsOpKeyAndID(body: String, op: OperationName, layout: String, id: RequestID) throws {
        let route = RequestRoute(scanning: Array(body.utf8))
        #expect(route.operation == op)
        #expect(route.layout == layout)
        #expect(route.id == id)
        // The decoder agrees wherever the body is a valid request.
        if let decoded = try? RequestDecoder().decode(Array(body.utf8)) {
            #expect(decoded.operation.name == op)
            #expect(decoded.id == id)
        }
    }

    @Test func bodiesWithoutARouteKeepWhatWasReadBeforeTheFault() {
        #expect(RequestRoute(scanning: Array("not json".utf8)) == RequestRoute())
        #expect(RequestRoute(scanning: Array(#"[1,2]"#.utf8)) == RequestRoute())
        let broken = RequestRoute(scanning: Array(#"{"id":3,"op":"ping","layout":5"#.utf8))
        #expect(broken.id == .number("3"))
        #expect(broken.operation == .ping)
        #expect(broken.layout == nil)
        #expect(RequestRoute(scanning: Array(#"{"op":"teleport","layout":"x"}"#.utf8)).operation == nil)
    }

    @Test func keyedAndChangingOps() {
        #expect(OperationName.allCases.filter(\.isKeyed) == [.prepare, .query, .bounds, .update, .diff, .drop])
        #expect(OperationName.allCases.filter(\.changesLayout) == [.prepare, .bounds, .update, .diff, .drop])
    }

    @Test func aReplySummaryReadsWhatTheEncodersWrite() throws {
        let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 375, height: 800), parameters: .mosaic(MosaicParameters()), sections: [Section(count: 40)]))
        let prepared = ReplyEncoder.success(id: .string("p"), result: PrepareResult(key: "feed", version: 4, layout: layout, selection: .all, format: .objects))
        let summary = ReplySummary(scanning: prepared)
        #expect(summary == ReplySummary(ok: true, version: 4, contentSize: layout.contentSize))

        let bounds = ReplyEncoder.success(id: nil, result: BoundsResult(invalidated: false, version: 9, contentSize: Size(width: 1, height: 2.5)))
        #expect(ReplySummary(scanning: bounds) == ReplySummary(ok: true, version: 9, invalidated: false, contentSize: Size(width: 1, height: 2.5)))

        let dropped = ReplyEncoder.success(id: .number("3"), result: DropResult(layout: "feed", version: 5))
        #expect(ReplySummary(scanning: dropped) == ReplySummary(ok: true, version: 5))

        let failed = ReplyEncoder.failure(id: .string("x"), error: WireError(.versionConflict, "no", path: "ifVersion"))
        #expect(ReplySummary(scanning: failed) == ReplySummary(ok: false, errorCode: "version_conflict"))
        #expect(ReplySummary(scanning: Array("garbage".utf8)) == ReplySummary())
    }

    @Test func listEntriesComeBackFromAListReply() {
        let entries = [ListResult.Entry(layout: "a", version: 2, items: 10, bytes: 999), .init(layout: "b\"c", version: 1, items: 0, bytes: 64)]
        let reply = ReplyEncoder.success(id: .string("l"), result: ListResult(layouts: entries))
        #expect(ListResult.entries(inReply: reply) == entries)
        #expect(ListResult.entries(inReply: ReplyEncoder.failure(id: nil, error: WireError(.busy, "full"))) == nil)
    }

    @Test func anEventSummaryReadsBothEventKinds() {
        let evicted = EventEncoder.invalidated(layout: "feed", version: 7, reason: .evicted, contentSize: Size(width: 1, height: 1))
        #expect(EventSummary(scanning: evicted.body) == EventSummary(event: "invalidated", layout: "feed", version: 7, reason: .evicted))
        let batch = EventEncoder.batch(layout: "k", version: 3, members: [EncodedMember(name: "deletes", json: Array("[[0,1]]".utf8))], contentSize: .zero)
        #expect(EventSummary(scanning: batch.body) == EventSummary(event: "batch", layout: "k", version: 3))
    }
}

@Suite struct LenientSkipTests {
    private func skipped(_ text: String) throws -> Int {
        let result: Result<Int, WireError> = Array(text.utf8).withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            do throws(WireError) {
                try reader.skipValueLeniently()
                return .success(reader.offset)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    @Test func skipsNestedValuesStringsAndEscapesToTheirEnd() throws {
        let value = #"{"a":[1,2,{"b":"]}\"x"}],"c":"{"}"#
        #expect(try skipped(value + #",rest"#) == value.utf8.count)
        #expect(try skipped(#"[[],[[]],"\\"]x"#) == 14)
        #expect(try skipped(#"  12.5,"#) == 6)
    }

    @Test func aBodyCutShortIsAnError() {
        #expect(throws: WireError.self) { try skipped(#"[1,2,"#) }
        #expect(throws: WireError.self) { try skipped(#"{"a":"unterminated"#) }
    }

    /// The word-at-a-time skip must stop where the strict skip does, wherever the structural bytes fall
    /// within a word: random valid values, with strings holding escapes, brackets and non-ASCII text.
    @Test(arguments: 0..<4)
    func aValidValueIsSkippedToWhereTheStrictSkipEnds(seed: UInt64) throws {
        var random = SeededGenerator(seed: 0x5eed + seed)
        for _ in 0..<200 {
            var value = ""
            Self.appendValue(to: &value, depth: 0, using: &random)
            let text = String(repeating: " ", count: Int.random(in: 0...9, using: &random)) + value + ",tail"
            let strict: Int? = Array(text.utf8).withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                return (try? reader.skipValue()) != nil ? reader.offset : nil
            }
            #expect(strict == text.utf8.count - ",tail".utf8.count, "the generator made invalid JSON: \(value)")
            #expect(try skipped(text) == strict, "\(text)")
        }
    }

    private static func appendValue(to text: inout String, depth: Int, using random: inout SeededGenerator) {
        let pieces = [#"\""#, #"\\"#, "[", "]", "{", "}", "é", "😀", ",", ":", "a", "0123456789", " "]
        switch depth < 4 ? Int.random(in: 0..<5, using: &random) : Int.random(in: 2..<5, using: &random) {
        case 0:
            text += "["
            for index in 0..<Int.random(in: 0..<6, using: &random) {
                if index > 0 { text += "," }
                appendValue(to: &text, depth: depth + 1, using: &random)
            }
            text += "]"
        case 1:
            text += "{"
            for index in 0..<Int.random(in: 0..<6, using: &random) {
                if index > 0 { text += ", " }
                text += "\"k\(index)\":"
                appendValue(to: &text, depth: depth + 1, using: &random)
            }
            text += "}"
        case 2:
            text += "\""
            for _ in 0..<Int.random(in: 0..<24, using: &random) { text += pieces.randomElement(using: &random) ?? "" }
            text += "\""
        case 3:
            text += String(Int.random(in: -100_000_000...100_000_000, using: &random))
        default:
            text += ["true", "false", "null", "12.5e-3"].randomElement(using: &random) ?? "null"
        }
    }

    @Test func theRouteOfALargeBodyIsReadPastItsBulkMembers() {
        let heights = (0..<10_000).map { String($0 % 97) }.joined(separator: ",")
        let body = #"{"sections":[{"heights":[\#(heights)],"ids":["a\"]"]}],"op":"prepare","layout":"wall","id":"p"}"#
        #expect(RequestRoute(scanning: Array(body.utf8)) == RequestRoute(operation: .prepare, layout: "wall", id: .string("p")))
    }
}
