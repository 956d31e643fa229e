import Testing
@testable import LayoutEngine

/// flickr's justified-layout 4.1.0, case by case (Fixtures/justified): the contract's job gives flickr's
/// boxes as cell frames and its containerHeight as the content height, double for double.
@Suite struct JustifiedFixtureTests {
    @Test func theFixturesAreThere() {
        let names = JustifiedFixture.fileNames
        #expect(names.filter { $0.hasPrefix("flickr-") }.count == 28)
        #expect(names.filter { $0.hasPrefix("random-") }.count == 60)
    }

    /// Right to left, every frame is flickr's box mirrored in the content width (LAYOUTS.md, Layout
    /// direction), as every layout fixture is checked in both directions.
    @Test(arguments: JustifiedFixture.fileNames, LayoutDirection.allCases)
    func givesFlickrsBoxes(file: String, direction: LayoutDirection) throws {
        let fixture = try JustifiedFixture.load(file)
        var input = try fixture.layoutInput
        input.layoutDirection = direction
        let layout = try PreparedLayout.prepare(input)
        func drawn(_ frame: Rect) -> Rect {
            direction == .rightToLeft ? frame.mirrored(inWidth: input.mirrorWidth) : frame
        }
        let p = try fixture.parameters
        let expected = fixture.expected
        let placed = expected.boxes.count
        try #require(placed <= fixture.input.count)

        var firstWrong: String?
        for (item, box) in expected.boxes.enumerated() {
            let frame = try #require(layout.cell(item: item, section: 0)).frame
            if frame != drawn(Rect(x: box[0], y: box[1], width: box[2], height: box[3])) {
                firstWrong = "item \(item): \(frame), flickr \(box)"
                break
            }
        }
        #expect(firstWrong == nil, "\(file): \(firstWrong ?? "")")

        // Items flickr leaves out: zero size, under the last placed row, at the left inset.
        let bottom = expected.boxes.last.map { $0[1] + $0[3] } ?? p.sectionInsets.top
        for item in placed..<fixture.input.count {
            let frame = try #require(layout.cell(item: item, section: 0)).frame
            #expect(frame == drawn(Rect(x: p.sectionInsets.left, y: bottom, width: 0, height: 0)), "\(file): item \(item)")
        }

        // With no row at all flickr takes back a spacing it never added; layoutd does not (LAYOUTS.md).
        let height = placed > 0 ? expected.containerHeight : p.sectionInsets.top + p.sectionInsets.bottom
        #expect(layout.contentSize.height == height, "\(file)")
        #expect(layout.placementCounts == PlacementCounts(widowCount: expected.widowCount, hiddenItemCount: fixture.input.count - placed), "\(file)")
    }
}
