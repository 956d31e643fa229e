import Foundation
import LayoutEngine
import Testing
@testable import LayoutServer

/// `query` with `pin` and `dynamics` over real sockets: the daemon answers what the engine computes, the
/// kept layout is left as it was, and bad options are typed errors with their paths.
@Suite(.serialized) struct VisibleRectSocketTests {
    /// Seed 004's two columns with a header and a footer per section, as a job.
    private static let job = #"{"v":1,"id":"p","op":"prepare","layout":"wall","bounds":{"width":320,"height":568},"spec":{"type":"waterfall","columns":2,"columnWidth":150,"columnSpacing":34,"cellPadding":0,"interitemSpacing":32,"sectionInsets":{"top":16,"left":16,"bottom":10},"tieBreak":"last","header":40,"footer":24},"sections":[{"heights":[120,80,200,60,150,90,130,70]},{"heights":[100,140,90,180]}]}"#

    private static func engineLayout() throws -> PreparedLayout {
        var p = WaterfallParameters()
        p.columnWidth = 150
        p.columnSpacing = 34
        p.cellPadding = 0
        p.interitemSpacing = 32
        p.sectionInsets = Insets(top: 16, left: 16, bottom: 10)
        p.tieBreak = .last
        p.headerHeight = 40
        p.footerHeight = 24
        let sections = [[120.0, 80, 200, 60, 150, 90, 130, 70], [100, 140, 90, 180]].map { heights in
            Section(items: ItemSizes(heights.map { ItemSizing(height: $0) }))
        }
        return try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 320, height: 568), parameters: .waterfall(p), sections: sections))
    }

    private static func frames(_ reply: [String: Any]) throws -> [(kind: String, section: Int, item: Int, y: Double, zIndex: Int?)] {
        let list = try #require(reply.result["attributes"] as? [[String: Any]])
        return list.map { object in
            (object["kind"] as? String ?? "", object["section"] as? Int ?? -1, object["item"] as? Int ?? -1,
             (object["y"] as? NSNumber)?.doubleValue ?? .nan, object["zIndex"] as? Int)
        }
    }

    @Test func pinnedAndDisplacedQueriesAnswerWhatTheEngineComputes() throws {
        let daemon = try TestDaemon()
        #expect(try daemon.call(Self.job).ok)
        let layout = try Self.engineLayout()
        let rect = Rect(x: 0, y: 300, width: 320, height: 568)
        let pinning = Pinning(headers: true, footers: true)
        let dynamics = ScrollDynamics(scrollDelta: -24, touch: Point(x: 160, y: 500))
        let rectJSON = #""rect":{"x":0,"y":300,"width":320,"height":568}"#

        let pinned = try daemon.call(#"{"v":1,"id":"q1","op":"query","layout":"wall",\#(rectJSON),"pin":{"headers":true,"footers":true}}"#)
        #expect(pinned.ok)
        let expectedPinned = layout.elements(inVisibleRect: rect, pinning: pinning)
        let gotPinned = try Self.frames(pinned)
        #expect(gotPinned.map(\.kind) == expectedPinned.map(\.kind.name))
        #expect(gotPinned.map(\.y) == expectedPinned.map(\.frame.y))
        #expect(gotPinned.filter { $0.kind != "cell" }.allSatisfy { $0.zIndex == 1 })
        // Section 0's header, whose own frame (0…40) is above the rect, comes pinned at its top.
        #expect(gotPinned.first.map { $0.kind == "header" && $0.section == 0 && $0.y == 300 } == true)

        let both = try daemon.call(#"{"v":1,"id":"q2","op":"query","layout":"wall",\#(rectJSON),"pin":{"headers":true,"footers":true},"dynamics":{"scrollDelta":-24,"touch":{"x":160,"y":500}}}"#)
        #expect(both.ok)
        let expectedBoth = layout.elements(inVisibleRect: rect, pinning: pinning, dynamics: dynamics)
        let gotBoth = try Self.frames(both)
        #expect(gotBoth.map(\.item) == expectedBoth.map(\.item))
        #expect(zip(gotBoth.map(\.y), expectedBoth.map(\.frame.y)).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) })
        #expect(gotBoth.map(\.y) != gotPinned.map(\.y), "the cells moved")

        // The kept layout did not change: a plain query answers the unpinned, unmoved frames.
        let plain = try daemon.call(#"{"v":1,"id":"q3","op":"query","layout":"wall",\#(rectJSON)}"#)
        #expect(try Self.frames(plain).map(\.y) == layout.elements(in: rect).map(\.frame.y))
        #expect(try Self.frames(plain).allSatisfy { $0.zIndex == nil })
    }

    @Test func badOptionsAreInvalidRequestsWithTheirPaths() throws {
        let daemon = try TestDaemon()
        #expect(try daemon.call(Self.job).ok)
        let cases: [(String, String)] = [
            (#""items":[[0,0]],"pin":{"headers":true}"#, "pin"),
            (#""supplementary":{"kind":"header"},"dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1}}"#, "dynamics"),
            (#""rect":{"x":0,"y":0,"width":1,"height":1},"pin":{"headers":1}"#, "pin.headers"),
            (#""rect":{"x":0,"y":0,"width":1,"height":1},"dynamics":{"scrollDelta":1,"touch":{"x":1,"y":1},"resistance":0}"#, "dynamics.resistance"),
            (#""rect":{"x":0,"y":0,"width":1,"height":1},"dynamics":{"touch":{"x":1,"y":1}}"#, "dynamics.scrollDelta"),
        ]
        for (fields, path) in cases {
            let reply = try daemon.call(#"{"v":1,"id":"e","op":"query","layout":"wall",\#(fields)}"#)
            #expect(reply.errorCode == "invalid_request", "\(fields)")
            #expect(reply.errorPath == path, "\(fields)")
        }
    }
}
