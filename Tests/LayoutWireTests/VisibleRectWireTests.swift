import Foundation
import LayoutEngine
import Testing
@testable import LayoutWire

/// A query's `pin` and `dynamics` (PROTOCOL.md §5.4): decoding with typed errors and paths, and the
/// `zIndex` of pinned elements in both formats.
@Suite struct VisibleRectDecodingTests {
    private func query(_ extra: String, rect: String? = #""rect":{"x":0,"y":100,"width":320,"height":400}"#) throws(WireError) -> QueryRequest {
        let target = rect.map { ",\($0)" } ?? #","items":[[0,0]]"#
        let request = try decodeRequest(#"{"v":1,"id":1,"op":"query","layout":"k"\#(target)\#(extra)}"#)
        guard case .query(let query) = request.operation else { throw WireError(.internal, "not a query") }
        return query
    }

    private func errorPath(_ extra: String, rect: String? = #""rect":{"x":0,"y":100,"width":320,"height":400}"#) -> String? {
        do {
            _ = try query(extra, rect: rect)
            return nil
        } catch {
            #expect(error.code == .invalidRequest, "\(error)")
            return error.path
        }
    }

    @Test func decodesPinAndDynamics() throws {
        let q = try query(#","pin":{"headers":true},"dynamics":{"scrollDelta":-12.5,"touch":{"x":10,"y":20}}"#)
        #expect(q.selection == .rect(Rect(x: 0, y: 100, width: 320, height: 400)))
        #expect(q.pinning == Pinning(headers: true, footers: false))
        #expect(q.dynamics == ScrollDynamics(scrollDelta: -12.5, touch: Point(x: 10, y: 20), resistance: 1500))
        let both = try query(#","pin":{"footers":true,"headers":false},"dynamics":{"resistance":800,"touch":{"y":0,"x":0},"scrollDelta":3}"#)
        #expect(both.pinning == Pinning(footers: true))
        #expect(both.dynamics == ScrollDynamics(scrollDelta: 3, touch: .zero, resistance: 800))
    }

    @Test func absentOrNullOptionsChangeNothing() throws {
        let plain = try query("")
        #expect(plain.pinning == .none && plain.dynamics == nil)
        let nulls = try query(#","pin":null,"dynamics":null"#)
        #expect(nulls.pinning == .none && nulls.dynamics == nil)
        #expect(try query(#","dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1},"resistance":null}"#).dynamics?.resistance == 1500)
    }

    @Test func theOptionsMayComeBeforeTheRect() throws {
        let request = try decodeRequest(#"{"pin":{"headers":true},"dynamics":{"scrollDelta":2,"touch":{"x":1,"y":1}},"op":"query","layout":"k","rect":{"x":0,"y":0,"width":1,"height":1}}"#)
        guard case .query(let q) = request.operation else { throw TestFailure("not a query") }
        #expect(q.pinning.headers && q.dynamics?.scrollDelta == 2)
    }

    @Test func bothNeedARect() {
        #expect(errorPath(#","pin":{"headers":true}"#, rect: nil) == "pin")
        #expect(errorPath(#","pin":{}"#, rect: nil) == "pin")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1}}"#, rect: nil) == "dynamics")
    }

    @Test func badPinsNameTheirField() {
        #expect(errorPath(#","pin":true"#) == "pin")
        #expect(errorPath(#","pin":{"headers":"yes"}"#) == "pin.headers")
        #expect(errorPath(#","pin":{"footers":1}"#) == "pin.footers")
        #expect(errorPath(#","pin":{"header":true}"#) == "pin.header")
    }

    @Test func badDynamicsNameTheirField() {
        #expect(errorPath(#","dynamics":[]"#) == "dynamics")
        #expect(errorPath(#","dynamics":{"touch":{"x":1,"y":1}}"#) == "dynamics.scrollDelta")
        #expect(errorPath(#","dynamics":{"scrollDelta":"1","touch":{"x":1,"y":1}}"#) == "dynamics.scrollDelta")
        #expect(errorPath(#","dynamics":{"scrollDelta":1e309,"touch":{"x":1,"y":1}}"#) == "dynamics.scrollDelta")
        #expect(errorPath(#","dynamics":{"scrollDelta":2e18,"touch":{"x":1,"y":1}}"#) == "dynamics.scrollDelta")
        #expect(errorPath(#","dynamics":{"scrollDelta":1}"#) == "dynamics.touch")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":[1,1]}"#) == "dynamics.touch")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":{"x":1}}"#) == "dynamics.touch.y")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":{"x":-3e18,"y":1}}"#) == "dynamics.touch.x")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1,"z":1}}"#) == "dynamics.touch.z")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1},"resistance":0}"#) == "dynamics.resistance")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1},"resistance":-1500}"#) == "dynamics.resistance")
        #expect(errorPath(#","dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1},"damping":0.1}"#) == "dynamics.damping")
    }
}

@Suite struct VisibleRectEncodingTests {
    /// Two list sections of a 30 pt header, 4 items of 50 and a 20 pt footer (0…250, 250…500), backgrounds on.
    private func layout() throws -> PreparedLayout {
        var p = ListParameters()
        p.itemHeight = 50
        let section = Section(items: ItemSizes(count: 4), headerHeight: 30, footerHeight: 20)
        return try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 320, height: 400), parameters: .list(p), sectionBackgrounds: true, sections: [section, section]))
    }

    private func attributes(_ result: QueryResult) throws -> Any {
        let body = ReplyEncoder.success(id: nil, result: result)
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let result = try #require(envelope["result"] as? [String: Any])
        return try #require(result["attributes"])
    }

    @Test func pinnedElementsCarryZIndexOneInObjects() throws {
        let layout = try layout()
        let rect = Rect(x: 0, y: 100, width: 320, height: 100)
        let pinning = Pinning(headers: true, footers: true)
        let list = try #require(try attributes(QueryResult(version: 1, layout: layout, selection: .rect(rect), format: .objects, pinning: pinning)) as? [[String: Any]])
        let expected = layout.elements(inVisibleRect: rect, pinning: pinning)
        #expect(list.count == expected.count)
        for (object, element) in zip(list, expected) {
            #expect(object["kind"] as? String == element.kind.name)
            #expect((object["y"] as? NSNumber)?.doubleValue == element.frame.y)
            let zIndex = (object["zIndex"] as? NSNumber)?.intValue
            switch element.kind {
            case .header, .footer: #expect(zIndex == 1)
            case .decoration: #expect(zIndex == -1)
            case .cell: #expect(zIndex == nil)
            }
        }
        // The header is pinned at the rect's top and the footer at its bottom.
        #expect(expected.first { $0.kind == .header }?.frame.y == 100)
        #expect(expected.first { $0.kind == .footer }?.frame.maxY == 200)
    }

    @Test func columnsGetAZIndexColumnOnlyWithPinning() throws {
        let layout = try layout()
        let rect = Rect(x: 0, y: 100, width: 320, height: 100)
        let pinned = try #require(try attributes(QueryResult(version: 1, layout: layout, selection: .rect(rect), format: .columns, pinning: Pinning(headers: true))) as? [String: Any])
        #expect(Set(pinned.keys) == ["kind", "section", "item", "x", "y", "width", "height", "zIndex"])
        let kinds = try #require(pinned["kind"] as? [String])
        let zIndices = try #require(pinned["zIndex"] as? [NSNumber]).map(\.intValue)
        // Headers are pinned (1), footers are not (0), decorations -1.
        #expect(zIndices == kinds.map { $0 == "header" ? 1 : $0 == "decoration" ? -1 : 0 })
        #expect(kinds.first == "header")

        let dynamics = ScrollDynamics(scrollDelta: 10, touch: Point(x: 1, y: 1))
        let moved = try #require(try attributes(QueryResult(version: 1, layout: layout, selection: .rect(rect), format: .columns, dynamics: dynamics)) as? [String: Any])
        #expect(Set(moved.keys) == ["kind", "section", "item", "x", "y", "width", "height"])
        let ys = try #require(moved["y"] as? [NSNumber]).map(\.doubleValue)
        #expect(ys == layout.elements(inVisibleRect: rect, pinning: .none, dynamics: dynamics).map(\.frame.y))
    }
}
