/// What a `PreparedLayout` holds. Immutable once made; a class only so that a layout is one reference
/// wherever it is kept (see `PreparedLayout.parts`).
final class PreparedLayoutParts: Sendable {
    let input: LayoutInput
    let sectionFrames: [SectionFrames]
    let sectionTops: [Double]
    let contentSize: Size
    let hasBackground: Bool
    let backgroundWidth: Double
    let ordinalStarts: [Int]
    let index: RectIndex

    init(
        input: LayoutInput, sectionFrames: [SectionFrames], sectionTops: [Double], contentSize: Size, hasBackground: Bool,
        backgroundWidth: Double, ordinalStarts: [Int], index: RectIndex
    ) {
        self.input = input
        self.sectionFrames = sectionFrames
        self.sectionTops = sectionTops
        self.contentSize = contentSize
        self.hasBackground = hasBackground
        self.backgroundWidth = backgroundWidth
        self.ordinalStarts = ordinalStarts
        self.index = index
    }

    /// The object's own size: its header and its stored properties.
    static var instanceBytes: Int {
        16 + MemoryLayout<LayoutInput>.stride + 2 * MemoryLayout<[Int]>.stride + MemoryLayout<[SectionFrames]>.stride
            + MemoryLayout<Size>.stride + 2 * MemoryLayout<Double>.stride + MemoryLayout<RectIndex>.stride
    }
}

extension SectionFrames {
    /// Cells, header, footer and (with `background`) the background decoration.
    func elementCount(withBackground background: Bool) -> Int {
        cells.count + (header == nil ? 0 : 1) + (footer == nil ? 0 : 1) + (background ? 1 : 0)
    }
}
