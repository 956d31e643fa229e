import Foundation
import LayoutEngine
import Testing
@testable import LayoutWire

/// The `justified` spec by flickr's option names, and its counts in replies.
@Suite struct JustifiedWireTests {
    func parameters(_ spec: String) throws -> LayoutParameters {
        try layoutInput(layoutBody(spec: spec, sections: "[]")).parameters
    }

    @Test func readsFlickrsOptions() throws {
        var expected = JustifiedParameters()
        expected.targetRowHeight = 180
        expected.targetRowHeightTolerance = 0.1
        expected.boxSpacing = .init(horizontal: 4, vertical: 0)
        expected.maxNumRows = 12
        expected.forceAspectRatio = 1.5
        expected.showWidows = false
        expected.fullWidthBreakoutRowCadence = 5
        expected.widowLayoutStyle = .center
        expected.sectionInsets = Insets(top: 20, left: 0, bottom: 0, right: 8)
        expected.headerHeight = 30
        expected.footerHeight = 12
        let spec = #"{"type":"justified","targetRowHeight":180,"targetRowHeightTolerance":0.1,"boxSpacing":{"horizontal":4},"maxNumRows":12,"#
            + #""forceAspectRatio":1.5,"showWidows":false,"fullWidthBreakoutRowCadence":5,"widowLayoutStyle":"center","#
            + #""sectionInsets":{"top":20,"right":8},"header":30,"footer":12}"#
        #expect(try parameters(spec) == .justified(expected))
    }

    @Test func flickrsFalseAndNullMeanOff() throws {
        let spec = #"{"type":"justified","maxNumRows":null,"forceAspectRatio":false,"fullWidthBreakoutRowCadence":false,"boxSpacing":6}"#
        var expected = JustifiedParameters()
        expected.boxSpacing = .init(all: 6)
        #expect(try parameters(spec) == .justified(expected))
        let nulls = #"{"type":"justified","forceAspectRatio":null,"fullWidthBreakoutRowCadence":null}"#
        #expect(try parameters(nulls) == .justified(JustifiedParameters()))
    }

    @Test func aSectionOverridesOneOption() throws {
        let sections = #"[{"count":2},{"count":3,"params":{"targetRowHeight":90}}]"#
        let input = try layoutInput(layoutBody(spec: #"{"type":"justified","boxSpacing":2}"#, sections: sections))
        var expected = JustifiedParameters()
        expected.boxSpacing = .init(all: 2)
        expected.targetRowHeight = 90
        #expect(input.sections[1].parameters == .justified(expected))
    }

    @Test(arguments: [
        (#"{"type":"justified","forceAspectRatio":true}"#, "spec.forceAspectRatio"),
        (#"{"type":"justified","fullWidthBreakoutRowCadence":2.5}"#, "spec.fullWidthBreakoutRowCadence"),
        (#"{"type":"justified","fullWidthBreakoutRowCadence":"3"}"#, "spec.fullWidthBreakoutRowCadence"),
        (#"{"type":"justified","maxNumRows":false}"#, "spec.maxNumRows"),
        (#"{"type":"justified","maxNumRows":1.5}"#, "spec.maxNumRows"),
        (#"{"type":"justified","widowLayoutStyle":"porkchop sandwiches"}"#, "spec.widowLayoutStyle"),
        (#"{"type":"justified","showWidows":1}"#, "spec.showWidows"),
        (#"{"type":"justified","boxSpacing":[1,2]}"#, "spec.boxSpacing"),
        (#"{"type":"justified","boxSpacing":{"vertical":"x"}}"#, "spec.boxSpacing.vertical"),
        // flickr's names for what layoutd takes elsewhere.
        (#"{"type":"justified","containerPadding":10}"#, "spec.containerPadding"),
        (#"{"type":"justified","containerWidth":1060}"#, "spec.containerWidth"),
    ])
    func rejectsWhatFlickrsOptionsDoNotAllow(spec: String, path: String) {
        let error = decodingError(layoutBody(spec: spec, sections: "[]"))
        #expect(error?.code == .invalidRequest && error?.path == path, "\(spec): \(String(describing: error))")
    }

    @Test func countsCarryWidowsAndLeftOutItemsForJustifiedOnly() throws {
        var p = JustifiedParameters()
        p.maxNumRows = 1
        let justified = LayoutInput(
            bounds: Size(width: 1060, height: 800), parameters: .justified(p),
            sections: [Section(items: ItemSizes((0..<5).map { _ in ItemSizing(aspectRatio: 1) })), Section(count: 4)]
        )
        // Section 0: a row of three, two left out; section 1: the same, one left out.
        let counts = try replyCounts(PreparedLayout.prepare(justified))
        #expect(counts["widowCount"] as? Int == 0 && counts["hiddenItems"] as? Int == 3 && counts["items"] as? Int == 9)

        p.maxNumRows = nil
        var widows = justified
        widows.parameters = .justified(p)
        widows.sections = [Section(count: 4)]
        let widowCounts = try replyCounts(PreparedLayout.prepare(widows))
        #expect(widowCounts["widowCount"] as? Int == 1 && widowCounts["hiddenItems"] as? Int == 0)

        let list = LayoutInput(bounds: Size(width: 320, height: 480), parameters: .list(ListParameters()), sections: [Section(count: 2)])
        let listCounts = try replyCounts(PreparedLayout.prepare(list))
        #expect(listCounts["widowCount"] == nil && listCounts["hiddenItems"] == nil)
    }

    /// examples/jobs/justified.json decodes and lays out as its README line says: section 2 shows two
    /// rows of three squares and leaves the other 14 items out.
    @Test func theExampleJobLaysOut() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let job = try String(contentsOf: root.appendingPathComponent("examples/jobs/justified.json"), encoding: .utf8)
        let body = "{\"op\":\"layout\"," + job.drop(while: { $0 != "{" }).dropFirst()
        let layout = try PreparedLayout.prepare(try layoutInput(body))
        #expect(layout.sectionCount == 3)
        #expect(layout.sectionFrames[2].placement == PlacementCounts(widowCount: 0, hiddenItemCount: 14))
        #expect(layout.sectionFrames[0].placement.hiddenItemCount == 0)
    }

    private func replyCounts(_ layout: PreparedLayout) throws -> [String: Any] {
        let body = ReplyEncoder.success(id: nil, result: LayoutResult(layout: layout, selection: nil, format: .objects))
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let result = try #require(envelope["result"] as? [String: Any])
        return try #require(result["counts"] as? [String: Any])
    }
}
