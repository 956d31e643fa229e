import LayoutTestKit
import LayoutEngine
import Testing
@testable import LayoutWire

/// The bulk loop of item objects (`ItemObjectsDecoder.appendSimpleItems`): the same values as the general
/// path for every body, the same error (code, message, path; the byte of a syntax error) for every bad
/// one, and where it hands over.
@Suite struct SimpleItemRunTests {
    /// What decoding an `items` array gave: its columns (as bit patterns, NaN included), ids and where the
    /// reader stopped, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case decoded(count: Int, columns: [[UInt64]], spans: [Bool], ids: [ItemID]?, offset: Int)
        case failed(WireError)

        var description: String {
            switch self {
            case let .decoded(count, columns, spans, ids, offset):
                let shown = columns.map { $0.map { Double(bitPattern: $0) } }
                return "\(count) items \(shown) spans \(spans) ids \(String(describing: ids)) to byte \(offset)"
            case let .failed(error): return "\(error)"
            }
        }
    }

    /// Decodes `items` (an array's text) with or without the bulk loop. 64 spaces follow the array, so the
    /// loop runs up to its last item (it leaves the last 48 bytes of a body to the general path).
    static func decodeItems(_ items: String, simpleItems: Bool, maxDepth: Int = JSONReader.defaultMaxDepth) -> Outcome {
        let bytes = Array((items + String(repeating: " ", count: 64)).utf8)
        return bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer, maxDepth: maxDepth)
            do throws(WireError) {
                let (sizes, ids) = try ItemObjectsDecoder.decode(&reader, at: JSONPath.root / "items", simpleItems: simpleItems)
                let columns = [sizes.heights, sizes.aspectRatios, sizes.widths].map { $0.map(\.bitPattern) }
                return .decoded(count: sizes.count, columns: columns, spans: sizes.spans, ids: ids, offset: reader.offset)
            } catch {
                return .failed(error)
            }
        }
    }

    /// Both paths, which must agree; returns the outcome.
    @discardableResult
    static func expectSameOutcome(_ items: String, maxDepth: Int = JSONReader.defaultMaxDepth, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let bulk = decodeItems(items, simpleItems: true, maxDepth: maxDepth)
        let general = decodeItems(items, simpleItems: false, maxDepth: maxDepth)
        #expect(bulk == general, "\(items.prefix(300))", sourceLocation: sourceLocation)
        return bulk
    }

    /// `count` compact height items, with `item` at `index`.
    static func items(_ count: Int = 100, replacing index: Int, with item: String) -> String {
        var items = (0..<count).map { #"{"height":\#(20 + Double($0 % 7) * 0.5)}"# }
        items[index] = item
        return "[" + items.joined(separator: ",") + "]"
    }

    @Test func theMemberWordsSpellTheirNames() {
        #expect(ItemObjectsDecoder.memberWordsMatchTheirNames())
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func readsEveryNumberAsTheGeneralPathDoes(seed: UInt64) throws {
        let texts = SimpleNumberRunTests.numberTexts(count: 2000, seed: seed)
        let members = ["height", "width", "aspectRatio"]
        var generator = SeededGenerator(seed: seed)
        let items = texts.map { #"{"\#(members.randomElement(using: &generator) ?? "height")":\#($0)}"# }
        Self.expectSameOutcome("[" + items.joined(separator: ",") + "]")
        // Negative numbers: the first one fails, as before.
        Self.expectSameOutcome("[" + texts.map { #"{"width":-\#($0)}"# }.joined(separator: ",") + "]")
        let heights = texts.map { #"{"height":\#($0)}"# }
        guard case .decoded(_, let columns, _, _, _) = Self.expectSameOutcome("[" + heights.joined(separator: ",") + "]") else {
            throw TestFailure("heights failed")
        }
        for (text, bits) in zip(texts, columns[0]) {
            #expect(bits == (try #require(Double(text))).bitPattern, "\(text)")
        }
    }

    @Test func readsEveryShapeOfSizesAsTheGeneralPathDoes() throws {
        var generator = SeededGenerator(seed: 7)
        let numbers = ["0", "-0", "1", "20.5", "0.25", "1234567.125", "999999999999999", "3e2", "1.5E-1", "12345678901234567"]
        var items: [String] = []
        for _ in 0..<3000 {
            var members: [String] = []
            for name in ["height", "aspectRatio", "width"].shuffled(using: &generator) where Bool.random(using: &generator) {
                // Zero is no aspect ratio: that case is among the bad items below.
                let allowed = name == "aspectRatio" ? numbers.filter { Double($0) != 0 } : numbers
                members.append(#""\#(name)":\#(allowed.randomElement(using: &generator) ?? "1")"#)
            }
            // A repeated member: the last one counts.
            if Int.random(in: 0..<10, using: &generator) == 0 { members.append(#""height":7.5"#) }
            items.append("{" + members.joined(separator: ",") + "}")
        }
        guard case .decoded(let count, let columns, _, let ids, _) = Self.expectSameOutcome("[" + items.joined(separator: ",") + "]") else {
            throw TestFailure("the body failed")
        }
        #expect(count == 3000)
        #expect(columns.allSatisfy { $0.count == 3000 })
        #expect(ids == nil)
    }

    @Test func readsUnusualItemsAsTheGeneralPathDoes() throws {
        let unusual = [
            // Reordered, extra and repeated members; spans, ids and nulls; whitespace anywhere.
            #"{"width":90,"aspectRatio":1.5,"height":60}"#, #"{"height":1,"colour":"red","width":2}"#,
            #"{"height":1,"height":2}"#, #"{"height":3,"span":true}"#, #"{"span":false,"width":4}"#,
            #"{"height":null}"#, #"{"height":5,"width":null}"#, #"{}"#, #"{ }"#, #"{ "height":6}"#,
            #"{"height" :7}"#, #"{"height": 8}"#, #"{"height":9 }"#, #"{"height":10 ,"width":1}"#,
            #"{"h\u0065ight":11}"#, #"{"heights":12}"#, #"{"height2":1,"height":13}"#, #"{"Height":14}"#,
            #"{"aspectRatio":1e0}"#, #"{"aspectRatio":0.000000000000001}"#, #"{"width":-0.0}"#, #"{"height":-0}"#,
            #"{"meta":{"height":1},"height":15}"#, #"{"widths":1,"width":16}"#, #"{"aspectRatios":2}"#,
        ]
        for item in unusual {
            for index in [0, 1, 50, 98, 99] {
                let outcome = Self.expectSameOutcome(Self.items(replacing: index, with: item))
                guard case .decoded = outcome else {
                    Issue.record("\(item) at \(index): \(outcome)")
                    continue
                }
            }
        }
        // Pretty-printed items, and items in a short body (all near the end).
        Self.expectSameOutcome("[\n  " + (0..<50).map { #"{"height": \#($0)}"# }.joined(separator: ",\n  ") + "\n]")
        Self.expectSameOutcome(#"[{"height":1},{"width":2}]"#)
        Self.expectSameOutcome(#"[ {"height":1} , {"width":2} ,"# + (0..<40).map { _ in #"{"height":3}"# }.joined(separator: ",") + " ]")
    }

    @Test func idsAreAllOrNoneAsBefore() throws {
        let withIDs = (0..<100).map { #"{"id":"i\#($0)","height":\#($0)}"# }
        guard case .decoded(_, _, _, let ids?, _) = Self.expectSameOutcome("[" + withIDs.joined(separator: ",") + "]") else {
            throw TestFailure("ids were lost")
        }
        #expect(ids.count == 100)
        var late = (0..<100).map { #"{"height":\#($0)}"# }
        late[60] = #"{"height":1,"id":"x"}"#
        let lateID = Self.expectSameOutcome("[" + late.joined(separator: ",") + "]")
        #expect(lateID == .failed(WireError(.invalidRequest, "item 60 has an id but item 0 has none; give every item an id or none", path: "items[60].id")))
        var missing = withIDs
        missing[40] = #"{"height":1}"#
        let missingID = Self.expectSameOutcome("[" + missing.joined(separator: ",") + "]")
        #expect(missingID == .failed(WireError(.invalidRequest, "missing id (earlier items have ids; give every item an id or none)", path: "items[40]")))
    }

    @Test func badItemsKeepTheirCodeMessageAndPath() {
        let expected: [(item: String, code: WireError.Code, message: String, field: String?)] = [
            (#"{"height":-5}"#, .invalidRequest, "must be a number >= 0, not -5.0", "height"),
            (#"{"height":-0.5,"width":1}"#, .invalidRequest, "must be a number >= 0, not -0.5", "height"),
            (#"{"width":1,"width":-1}"#, .invalidRequest, "must be a number >= 0, not -1.0", "width"),
            (#"{"aspectRatio":0}"#, .invalidRequest, "must be a number > 0, not 0.0", "aspectRatio"),
            (#"{"aspectRatio":-0.0}"#, .invalidRequest, "must be a number > 0, not -0.0", "aspectRatio"),
            (#"{"height":1,"aspectRatio":-1.5e1}"#, .invalidRequest, "must be a number > 0, not -15.0", "aspectRatio"),
            (#"{"height":1e400}"#, .invalidRequest, "1e400 is out of the range of a double", "height"),
            (#"{"height":"12"}"#, .invalidRequest, "must be a number, not a string", "height"),
            (#"{"width":true}"#, .invalidRequest, "must be a number, not a boolean", "width"),
            (#"{"aspectRatio":[1]}"#, .invalidRequest, "must be a number, not an array", "aspectRatio"),
            (#"{"height":{}}"#, .invalidRequest, "must be a number, not an object", "height"),
            (#"{"span":1}"#, .invalidRequest, "must be a boolean, not a number", "span"),
            (#"{"id":1.5}"#, .invalidRequest, "an id must be a string or an integer that fits 64 bits", "id"),
            (#"{"id":null}"#, .invalidRequest, "an id must be a string or an integer, not null", "id"),
            ("5", .invalidRequest, "must be an object, not a number", nil),
            ("[]", .invalidRequest, "must be an object, not an array", nil),
            ("null", .invalidRequest, "must be an object, not null", nil),
        ]
        for (item, code, message, field) in expected {
            for index in [0, 30, 99] {
                let outcome = Self.expectSameOutcome(Self.items(replacing: index, with: item))
                let path = "items[\(index)]" + (field.map { ".\($0)" } ?? "")
                #expect(outcome == .failed(WireError(code, message, path: path)), "\(item) at \(index)")
            }
        }
    }

    @Test func syntaxErrorsNameTheSameByte() {
        let broken = [
            #"{"height":012}"#, #"{"height":1.}"#, #"{"height":.5}"#, #"{"height":1e}"#, #"{"height":--1}"#,
            #"{"height":1,}"#, #"{"height":1"#, #"{"height":1]"#, #"{"height"1}"#, #"{"height":}"#, #"{height:1}"#,
            #"{"height":1}}"#, #"{"height":1}{"height":2}"#, #"{"height":1,,"width":2}"#,
            #"{"height":1 "width":2}"#, #"{"heig"#, "{", #"{"height":1}x"#,
        ]
        for item in broken {
            for index in [0, 50, 99] {
                let outcome = Self.expectSameOutcome(Self.items(replacing: index, with: item))
                guard case .failed(let error) = outcome, error.code == .invalidJSON, error.path == nil else {
                    Issue.record("\(item) at \(index): \(outcome)")
                    continue
                }
            }
        }
    }

    @Test func anItemObjectTooDeepIsReportedAsBefore() {
        // The items array itself is the last level allowed: its first object is one too deep.
        let outcome = Self.expectSameOutcome(Self.items(replacing: 0, with: #"{"height":1}"#), maxDepth: 1)
        guard case .failed(let error) = outcome else {
            Issue.record("decoded: \(outcome)")
            return
        }
        #expect(error.code == .tooLarge)
        #expect(error.path == "items[0]")
    }

    @Test func stopsAtTheFirstItemItDoesNotRead() throws {
        let text = #"{"height":1},{"width":2.5},{"height":1e3},{"height":4}]"# + String(repeating: " ", count: 60)
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var builder = ItemColumnsBuilder()
            #expect(!ItemObjectsDecoder.appendSimpleItems(&reader, to: &builder))
            #expect(reader.offset == 27)
            #expect(builder.count == 2)
            // After the general path read the exponent: one more item, stopping before the bracket.
            reader.offset = 42
            #expect(ItemObjectsDecoder.appendSimpleItems(&reader, to: &builder))
            #expect(reader.offset == 54)
            let sizes = builder.sizes()
            #expect(sizings(sizes) == [ItemSizing(height: 1), ItemSizing(width: 2.5), ItemSizing(height: 4)])
            _ = try #require(sizes.heights.first)
        }
    }

    @Test func leavesTheLastBytesOfTheBodyToTheGeneralPath() {
        let bytes = Array(#"{"height":1},{"height":2}]"#.utf8)
        bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var builder = ItemColumnsBuilder()
            #expect(!ItemObjectsDecoder.appendSimpleItems(&reader, to: &builder))
            #expect(reader.offset == 0)
            #expect(builder.count == 0)
        }
    }

    @Test func aWholeRequestDecodesAsItsColumns() throws {
        let heights = (0..<2000).map { 20 + Double($0 % 400) * 0.5 }
        let texts = heights.map { "\($0)" }
        let objects = try layoutInput(layoutBody(sections: #"[{"items":[\#(texts.map { #"{"height":\#($0)}"# }.joined(separator: ","))]},{"items":[{"aspectRatio":1.5,"width":10}]}]"#))
        #expect(objects.sections[0].items.heights == heights)
        #expect(sizings(objects.sections[1].items) == [ItemSizing(aspectRatio: 1.5, width: 10)])
        // An error deep in a long section of a whole request keeps its path.
        var items = texts.map { #"{"height":\#($0)}"# }
        items[1500] = #"{"height":20,"width":-2}"#
        let error = decodingError(layoutBody(sections: #"[{"count":1},{"items":[\#(items.joined(separator: ","))]}]"#))
        #expect(error == WireError(.invalidRequest, "must be a number >= 0, not -2.0", path: "sections[1].items[1500].width"))
        // A broken literal reads as a boolean where a number belongs, but the whole body is not JSON:
        // the syntax error outranks it, as before.
        items[1500] = #"{"height":tru}"#
        let syntax = decodingError(layoutBody(sections: #"[{"items":[\#(items.joined(separator: ","))]}]"#))
        #expect(syntax?.code == .invalidJSON)
        #expect(syntax?.path == nil)
        #expect(Self.expectSameOutcome(Self.items(replacing: 50, with: #"{"height":tru}"#)) == .failed(WireError(.invalidRequest, "must be a number, not a boolean", path: "items[50].height")))
    }
}
