import LayoutTestKit
@testable import LayoutEngine

/// SplitMix64: a tiny deterministic generator, so every random test input is reproducible from its seed
/// on any platform and toolchain (the helpers below avoid the standard library's `random(in:)`, whose
/// algorithm is not promised to stay the same).
struct SeededRandom {
    private var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    /// A whole number in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next().multipliedFullWidth(by: span).high)
    }

    /// A uniform value in `[0, 1)`.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A multiple of ½ in `range` (bounds as whole numbers): keeps sums exact, so properties that hold
    /// in real numbers also hold in the test's doubles.
    mutating func half(in range: ClosedRange<Int>) -> Double {
        Double(int(in: (2 * range.lowerBound)...(2 * range.upperBound))) / 2
    }

    mutating func element<T>(of values: [T]) -> T {
        values[int(in: 0...(values.count - 1))]
    }
}

/// Random but valid layout inputs for every layout kind: several sections, headers and footers from
/// every source (section field, section parameters, spec), per-section overrides, random item sizing,
/// contentInsets and section backgrounds.
///
/// Values stay in ranges where every layout is well-behaved: widths leave room for the columns,
/// paddings and insets asked for, so properties like "inside the content" are about placement, not
/// degenerate inputs.
enum RandomInputs {
    /// A random valid input of `kind` whose sections hold up to `maxItemsPerSection` items each.
    static func input(_ kind: LayoutKind, maxItemsPerSection: Int = 60, using random: inout SeededRandom) -> LayoutInput {
        let width = Double(random.int(in: 200...800))
        let insets = Insets(
            top: Double(random.int(in: 0...20)),
            left: random.chance(0.5) ? 0 : Double(random.int(in: 0...20)),
            bottom: Double(random.int(in: 0...20)),
            right: random.chance(0.5) ? 0 : Double(random.int(in: 0...20))
        )
        let sectionCount = random.int(in: 1...5)
        var sections: [Section] = []
        for _ in 0..<sectionCount {
            sections.append(section(kind, maxItems: maxItemsPerSection, using: &random))
        }
        return LayoutInput(
            bounds: Size(width: width, height: Double(random.int(in: 300...900))),
            parameters: parameters(kind, using: &random),
            contentInsets: insets,
            sectionBackgrounds: random.chance(0.5),
            sections: sections
        )
    }

    static func section(_ kind: LayoutKind, maxItems: Int, using random: inout SeededRandom) -> Section {
        let count = random.chance(0.15) ? 0 : random.int(in: 1...maxItems)
        var items = ItemSizes(count: 0)
        let sized = random.chance(0.7)
        for _ in 0..<count {
            items.append(sized ? sizing(kind, using: &random) : .unspecified)
        }
        return Section(
            items: items,
            headerHeight: random.chance(0.4) ? supplementaryHeight(using: &random) : nil,
            footerHeight: random.chance(0.4) ? supplementaryHeight(using: &random) : nil,
            parameters: random.chance(0.3) ? parameters(kind, using: &random) : nil
        )
    }

    /// 0 (no element) a third of the time, else 5…40.
    static func supplementaryHeight(using random: inout SeededRandom) -> Double {
        random.chance(0.33) ? 0 : random.half(in: 5...40)
    }

    static func sizing(_ kind: LayoutKind, using random: inout SeededRandom) -> ItemSizing {
        let height = random.half(in: 0...120)
        let ratio = Double(random.int(in: 2...10)) / 4
        if kind == .flow {
            switch random.int(in: 0...5) {
            case 0: return .unspecified
            case 1: return ItemSizing(height: height, width: random.half(in: 10...260))
            case 2: return ItemSizing(width: random.half(in: 10...200))
            case 3: return ItemSizing(height: height)
            case 4: return ItemSizing(height: height, isSpan: true)
            default: return ItemSizing(isSpan: true)
            }
        }
        if kind == .justified { return justifiedSizing(using: &random) }
        switch random.int(in: 0...3) {
        case 0: return .unspecified
        case 1: return ItemSizing(height: height)
        case 2: return ItemSizing(aspectRatio: ratio)
        default: return ItemSizing(height: height, aspectRatio: ratio)
        }
    }

    static func parameters(_ kind: LayoutKind, using random: inout SeededRandom) -> LayoutParameters {
        switch kind {
        case .columnFlow:
            var p = ColumnFlowParameters()
            p.minColumnWidth = random.half(in: 60...400)
            p.cellHeight = random.half(in: 10...100)
            p.margins = Insets(top: random.half(in: 0...20), left: random.half(in: 0...20), bottom: random.half(in: 0...20), right: random.half(in: 0...20))
            p.interitemSpacing = random.half(in: 0...16)
            p.lineSpacing = random.half(in: 0...16)
            p.headerHeight = supplementaryHeight(using: &random)
            p.footerHeight = supplementaryHeight(using: &random)
            return .columnFlow(p)
        case .mosaic:
            var p = MosaicParameters()
            p.segmentHeight = random.half(in: 20...250)
            p.spacing = random.half(in: 0...4)
            p.headerHeight = supplementaryHeight(using: &random)
            p.footerHeight = supplementaryHeight(using: &random)
            return .mosaic(p)
        case .waterfall:
            var p = WaterfallParameters()
            p.columns = random.int(in: 1...5)
            p.cellPadding = random.half(in: 0...8)
            p.itemHeight = random.half(in: 10...150)
            p.headerHeight = supplementaryHeight(using: &random)
            p.footerHeight = supplementaryHeight(using: &random)
            if random.chance(0.5) {
                // Seed 004's parameters. W is at least 160 (widths from 200, content insets up to 40):
                // the insets, spacings and a fixed width stay inside it for up to 5 columns.
                p.sectionInsets = randomInsets(0...16, using: &random)
                p.columnSpacing = random.half(in: 0...12)
                p.interitemSpacing = random.half(in: 0...40)
                p.tieBreak = random.element(of: WaterfallParameters.TieBreak.allCases)
                if random.chance(0.4) {
                    // At least 18: wider than the padding, also as LocalEdits raises it (by up to 0.9).
                    p.columnWidth = random.half(in: 18...(p.columns <= 2 ? 60 : 19))
                }
            }
            return .waterfall(p)
        case .list:
            var p = ListParameters()
            p.itemHeight = random.half(in: 10...80)
            p.spacing = random.half(in: 0...10)
            p.sectionInsets = randomInsets(0...16, using: &random)
            p.insetSupplementaryViews = random.chance(0.5)
            p.headerHeight = supplementaryHeight(using: &random)
            p.footerHeight = supplementaryHeight(using: &random)
            return .list(p)
        case .columns:
            var p = ColumnsParameters()
            p.columnCount = random.int(in: 1...4)
            p.columnSpacing = random.half(in: 0...12)
            p.interitemSpacing = random.half(in: 0...12)
            p.itemHeight = random.half(in: 10...80)
            // Rounding the column width may overrun the inset width by up to ½ per column; a right inset
            // of at least 2 keeps that inside W.
            p.sectionInsets = randomInsets(2...16, using: &random)
            p.insetSupplementaryViews = random.chance(0.5)
            p.placement = random.element(of: ColumnsParameters.Placement.allCases)
            p.headerHeight = supplementaryHeight(using: &random)
            p.footerHeight = supplementaryHeight(using: &random)
            return .columns(p)
        case .flow:
            var p = FlowParameters()
            p.interitemSpacing = random.half(in: 0...12)
            p.interspanSpacing = random.chance(0.5) ? random.half(in: 0...16) : nil
            p.spanGroupSpacingBefore = random.chance(0.5) ? random.half(in: 0...16) : nil
            p.spanGroupSpacingAfter = random.chance(0.5) ? random.half(in: 0...16) : nil
            p.defaultItemSize = Size(width: random.half(in: 20...100), height: random.half(in: 20...100))
            p.sectionInsets = randomInsets(0...16, using: &random)
            p.rowTransform = random.element(of: FlowParameters.RowTransform.allCases)
            p.fillMaxScale = random.chance(0.5) ? 0 : random.half(in: 1...3)
            p.headerHeight = supplementaryHeight(using: &random)
            p.footerHeight = supplementaryHeight(using: &random)
            return .flow(p)
        case .justified:
            return .justified(justifiedParameters(using: &random))
        }
    }

    /// Photos: an aspect ratio (0.5 to 3), a width and height (their ratio 0.5 to 4), or nothing (ratio 1).
    /// Together with a target of at least 60 and spacings of at most 12 no row can fill with spacing alone
    /// (flickr's negative widths, a documented deviation tested apart).
    static func justifiedSizing(using random: inout SeededRandom) -> ItemSizing {
        switch random.int(in: 0...4) {
        case 0: return .unspecified
        case 1: return ItemSizing(height: random.half(in: 0...120))
        case 2, 3: return ItemSizing(aspectRatio: Double(random.int(in: 2...12)) / 4)
        default:
            let height = random.half(in: 50...400)
            return ItemSizing(height: height, width: height * Double(random.int(in: 2...16)) / 4)
        }
    }

    static func justifiedParameters(using random: inout SeededRandom) -> JustifiedParameters {
        var p = JustifiedParameters()
        p.targetRowHeight = random.half(in: 60...200)
        p.targetRowHeightTolerance = random.element(of: [0, 0.1, 0.25, 0.5, 1])
        p.boxSpacing = random.chance(0.5)
            ? .init(all: random.half(in: 0...12))
            : .init(horizontal: random.half(in: 0...12), vertical: random.half(in: 0...12))
        p.maxNumRows = random.chance(0.2) ? random.int(in: 1...8) : nil
        p.forceAspectRatio = random.chance(0.1) ? random.element(of: [0.75, 1, 1.5]) : nil
        p.showWidows = random.chance(0.7)
        p.fullWidthBreakoutRowCadence = random.chance(0.25) ? random.int(in: 1...5) : nil
        p.widowLayoutStyle = random.element(of: JustifiedParameters.WidowLayoutStyle.allCases)
        p.sectionInsets = randomInsets(0...16, using: &random)
        p.headerHeight = supplementaryHeight(using: &random)
        p.footerHeight = supplementaryHeight(using: &random)
        return p
    }

    /// Whole-number insets: the flow layout's `center` rounds to whole points, which stays inside the
    /// row only when the row's edges are whole.
    static func randomInsets(_ range: ClosedRange<Int>, using random: inout SeededRandom) -> Insets {
        Insets(
            top: Double(random.int(in: range)),
            left: Double(random.int(in: range)),
            bottom: Double(random.int(in: range)),
            right: Double(random.int(in: range))
        )
    }
}
