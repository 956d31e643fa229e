import LayoutEngine
import Testing
@testable import LayoutWire

/// A layout input written as a `prepare` body decodes back to the same input: the cluster's snapshots
/// depend on it (the whole round trip through a worker is SnapshotTests').
@Suite struct PrepareBodyEncodingTests {
    /// The input the body of `input` decodes to, and the body.
    private func roundTrip(_ input: LayoutInput, layout: String = "feed") throws -> (input: LayoutInput, body: String) {
        let writer = PrepareBodyEncoder.body(layout: layout, input: input)
        let bytes = writer.finish()
        let request = try RequestDecoder().decode(bytes)
        guard case .prepare(let prepare) = request.operation else { throw WireError(.internal, "not a prepare") }
        #expect(prepare.layout == layout)
        #expect(request.id == nil && prepare.attributes == nil)
        return (prepare.input, String(decoding: bytes, as: UTF8.self))
    }

    @Test(arguments: LayoutKind.allCases)
    func everyParameterComesBackIncludingTheUnsetOnes(kind: LayoutKind) throws {
        var input = LayoutInput(
            bounds: Size(width: 375.5, height: 812), parameters: .defaults(for: kind),
            contentInsets: Insets(top: 1, left: 2.25, bottom: 3, right: 0.1), sectionBackgrounds: true,
            layoutDirection: .rightToLeft, sections: [Section(count: 3)]
        )
        #expect(try roundTrip(input).input == input)
        // Every optional set, and a section of its own parameters.
        var parameters = LayoutParameters.defaults(for: kind)
        switch parameters {
        case .waterfall(var p):
            p.columnWidth = 40.333333333333336
            parameters = .waterfall(p)
        case .flow(var p):
            p.interspanSpacing = 3
            p.spanGroupSpacingBefore = 0.1
            p.spanGroupSpacingAfter = 7
            parameters = .flow(p)
        case .justified(var p):
            p.maxNumRows = 4
            p.forceAspectRatio = 1.5
            p.fullWidthBreakoutRowCadence = 2
            p.boxSpacing = .init(horizontal: 3, vertical: 1.0 / 3)
            parameters = .justified(p)
        case .columns(var p):
            p.columnCount = 0
            parameters = .columns(p)
        default:
            break
        }
        input.parameters = parameters
        input.sections.append(Section(items: ItemSizes(count: 2), headerHeight: 0, footerHeight: 12.5, parameters: .defaults(for: kind)))
        #expect(try roundTrip(input).input == input)
    }

    @Test func sizesIdsAndNamesComeBackExactly() throws {
        let sizes = try #require(ItemSizes(
            count: 4, heights: [.nan, 10.1, 1e-7, -0.0], aspectRatios: [1.0 / 3, .nan, 1e9, 2], widths: [], spans: [false, true, false, false]
        ))
        let ids: [ItemID] = [.integer(.min), .integer(.max), .string("q\"\\\n\u{1}é日本"), .string("")]
        let input = LayoutInput(
            bounds: Size(width: 0.30000000000000004, height: 0), parameters: .defaults(for: .flow),
            sections: [Section(items: sizes, ids: ids), Section(count: 0), Section(items: ItemSizes(count: 0), ids: [])]
        )
        let (decoded, body) = try roundTrip(input, layout: "a \"quoted\" name")
        // (Not `==`: NaN, "not set", is unequal to itself.)
        #expect(decoded.describesSameLayout(as: input))
        #expect(decoded.sections.map(\.ids) == input.sections.map(\.ids))
        // Columns to the bit: the negative zero stays negative.
        let columns = { (items: ItemSizes) in [items.heights, items.aspectRatios, items.widths].map { $0.map { $0.isNaN ? 1 : $0.bitPattern } } }
        #expect(columns(decoded.sections[0].items) == columns(sizes))
        #expect(decoded.sections[0].items.spans == sizes.spans)
        #expect(body.contains(#""heights":[null,10.1,1e-07,-0]"#), "\(body)")
    }

    @Test func aColumnNoItemSetsComesBackAbsentWithTheSameItems() throws {
        var items = ItemSizes(count: 0)
        items.append(ItemSizing(height: 5, isSpan: true))
        items.append(ItemSizing())
        // Reloaded without a height and a span: both columns stay, unset everywhere.
        items[0] = ItemSizing()
        #expect(items.heights.count == 2 && items.spans == [false, false])
        let input = LayoutInput(bounds: Size(width: 320, height: 480), parameters: .defaults(for: .flow), sections: [Section(items: items)])
        let decoded = try roundTrip(input).input
        #expect(decoded != input, "stored differently")
        #expect(decoded.sections[0].items.heights.isEmpty && decoded.sections[0].items.spans.isEmpty)
        #expect(decoded.describesSameLayout(as: input) && input.describesSameLayout(as: decoded))

        var other = input
        other.sections[0].items[1] = ItemSizing(height: 1)
        #expect(!other.describesSameLayout(as: input))
        other = input
        other.sections[0].ids = [.integer(1), .integer(2)]
        #expect(!other.describesSameLayout(as: input))
    }
}
