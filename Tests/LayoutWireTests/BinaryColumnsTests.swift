import LayoutEngine
import LayoutTestKit
import Testing
@testable import LayoutWire

/// The binary format's columns hold exactly the elements the engine lists, in its order.
struct BinaryColumnsTests {
    private static func values<T>(_ column: BinaryColumn, as _: T.Type) -> [T] {
        let bytes = column.bytes.bytes
        return (0..<column.count).map { i in bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i * MemoryLayout<T>.size, as: T.self) } }
    }

    private static func expectColumns(of attributes: Attributes, equal elements: [LayoutElement], zIndex: ((ElementKind) -> Int)? = nil) {
        let binary = BinaryColumns(attributes)
        #expect(binary.count == elements.count)
        let byName = Dictionary(uniqueKeysWithValues: binary.columns.map { ($0.name, $0) })
        #expect(binary.columns.map(\.name) == ["kind", "section", "item", "x", "y", "width", "height"] + (zIndex == nil ? [] : ["zIndex"]))
        for column in binary.columns {
            #expect(column.bytes.count == column.count * column.type.size, "\(column.name)")
        }
        guard let kinds = byName["kind"], let sections = byName["section"], let items = byName["item"],
              let xs = byName["x"], let ys = byName["y"], let widths = byName["width"], let heights = byName["height"] else {
            Issue.record("a column is missing")
            return
        }
        #expect(values(kinds, as: UInt8.self) == elements.map { BinaryColumns.code(of: $0.kind) })
        #expect(values(sections, as: Int32.self) == elements.map { Int32($0.section) })
        #expect(values(items, as: Int32.self) == elements.map { Int32($0.item) })
        #expect(values(xs, as: Double.self) == elements.map(\.frame.x))
        #expect(values(ys, as: Double.self) == elements.map(\.frame.y))
        #expect(values(widths, as: Double.self) == elements.map(\.frame.width))
        #expect(values(heights, as: Double.self) == elements.map(\.frame.height))
        if let zIndex, let column = byName["zIndex"] {
            #expect(values(column, as: Int32.self) == elements.map { Int32(zIndex($0.kind)) })
        }
    }

    @Test(arguments: 0..<8) func everySelectionMatchesTheEngine(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let sections = (0..<Int.random(in: 1...4, using: &random)).map { _ in
            let heights = (0..<Int.random(in: 0...300, using: &random)).map { _ in Double.random(in: 10...200, using: &random).rounded() }
            return Section(items: ItemSizes(count: heights.count, heights: heights) ?? ItemSizes(count: 0))
        }
        var parameters = WaterfallParameters()
        parameters.headerHeight = seed % 2 == 0 ? 24 : 0
        parameters.footerHeight = seed % 3 == 0 ? 10 : 0
        let input = LayoutInput(bounds: Size(width: 375, height: 800), parameters: .waterfall(parameters), sectionBackgrounds: seed % 2 == 1, sections: sections)
        let layout = try PreparedLayout.prepare(input)
        var all: [LayoutElement] = []
        layout.forEachElement { all.append($0) }
        Self.expectColumns(of: Attributes(layout: layout, selection: .all, format: .binary), equal: all)

        let rect = Rect(x: 0, y: Double.random(in: 0...2_000, using: &random), width: 375, height: 812)
        var inRect: [LayoutElement] = []
        layout.forEachElement(in: rect) { inRect.append($0) }
        Self.expectColumns(of: Attributes(layout: layout, selection: .rect(rect), format: .binary), equal: inRect)

        let pinning = Pinning(headers: true, footers: false)
        var pinned: [LayoutElement] = []
        layout.forEachElement(inVisibleRect: rect, pinning: pinning, dynamics: nil) { pinned.append($0) }
        Self.expectColumns(
            of: Attributes(layout: layout, selection: .rect(rect), format: .binary, pinning: pinning), equal: pinned, zIndex: pinning.zIndex(of:)
        )
    }

    @Test func aSingleSectionOfCellsSharesTheEnginesColumns() throws {
        // Mosaic's cells only, in one section starting at 0: x, y, width and height are its own columns.
        let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 375, height: 800), parameters: .mosaic(MosaicParameters()), sections: [Section(count: 1000)]))
        let attributes = Attributes(layout: layout, selection: .all, format: .binary)
        let binary = try #require(attributes.binaryColumns)
        var elements: [LayoutElement] = []
        layout.forEachElement { elements.append($0) }
        Self.expectColumns(of: attributes, equal: elements)
        for column in binary.columns {
            let isShared = if case .shared = column.bytes { true } else { false }
            #expect(isShared == ["x", "y", "width", "height"].contains(column.name), "\(column.name)")
        }
        // With a header, nothing is shared: the columns interleave it with the cells.
        var parameters = MosaicParameters()
        parameters.headerHeight = 20
        let headed = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 375, height: 800), parameters: .mosaic(parameters), sections: [Section(count: 10)]))
        let columns = try #require(Attributes(layout: headed, selection: .all, format: .binary).binaryColumns)
        #expect(columns.columns.allSatisfy { if case .owned = $0.bytes { true } else { false } })
    }
}
