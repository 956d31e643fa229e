import LayoutTestKit
import LayoutEngine

/// How the items of a bench input are sized.
enum Sizing: String, CaseIterable, Sendable {
    /// No per-item sizing: every item takes the layout's default.
    case `default`
    /// Seeded per-item sizing: a third height only (40–240), a third aspectRatio only (0.5–2),
    /// a third both (the additive case); flow items also get a width (40–200).
    case varied
}

/// The inputs every benchmark uses: one section, a phone-sized viewport, the layouts' default parameters.
struct BenchInputs: Sendable {
    /// An iPhone's portrait bounds; also the query viewport.
    static let bounds = Size(width: 375, height: 812)

    let itemCount: Int
    let sizing: Sizing
    private let items: ItemSizes
    /// The same items with a width each, for flow.
    private let flowItems: ItemSizes

    init(itemCount: Int, sizing: Sizing, seed: UInt64 = 0x5EED) {
        self.itemCount = itemCount
        self.sizing = sizing
        switch sizing {
        case .default:
            items = ItemSizes(count: itemCount)
            flowItems = items
        case .varied:
            (items, flowItems) = Self.variedItems(count: itemCount, seed: seed)
        }
    }

    /// The input of one layout kind over these items.
    func input(for kind: LayoutKind) -> LayoutInput {
        let sizes = kind == .flow ? flowItems : items
        return LayoutInput(bounds: Self.bounds, parameters: .defaults(for: kind), sections: [Section(items: sizes)])
    }

    private static func variedItems(count: Int, seed: UInt64) -> (ItemSizes, ItemSizes) {
        var random = SeededGenerator(seed: seed)
        var heights = [Double](repeating: .nan, count: count)
        var aspectRatios = [Double](repeating: .nan, count: count)
        var widths = [Double](repeating: .nan, count: count)
        for i in 0..<count {
            switch random.next() % 3 {
            case 0:
                heights[i] = Double.random(in: 40...240, using: &random)
            case 1:
                aspectRatios[i] = Double.random(in: 0.5...2, using: &random)
            default:
                aspectRatios[i] = Double.random(in: 0.5...2, using: &random)
                heights[i] = Double.random(in: 20...60, using: &random)
            }
            widths[i] = Double.random(in: 40...200, using: &random)
        }
        // The column lengths equal `count` by construction, so these initialisers cannot fail.
        let items = ItemSizes(count: count, heights: heights, aspectRatios: aspectRatios) ?? ItemSizes(count: count)
        let flowItems = ItemSizes(count: count, heights: heights, aspectRatios: aspectRatios, widths: widths) ?? items
        return (items, flowItems)
    }
}
