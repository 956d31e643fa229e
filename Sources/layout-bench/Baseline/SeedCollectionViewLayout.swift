import LayoutTestKit
import LayoutEngine

/// What the seeds' layouts read from their collection view.
struct SeedCollectionView {
    var bounds: Size
    var contentInset: Insets
    var numberOfItems: Int
}

/// The sizing delegate of seed 002 (`heightForCellAt:withWidth:`) and of the framework in seed 003.
protocol SeedLayoutDelegate: AnyObject {
    func collectionView(heightForItemAt indexPath: SeedIndexPath, withWidth width: Double, defaultHeight: Double) -> Double
}

/// The delegate over the bench's item sizing, by the common sizing rule (LAYOUTS.md).
final class SeedItemSizes: SeedLayoutDelegate {
    private let items: ItemSizes

    init(_ items: ItemSizes) {
        self.items = items
    }

    func collectionView(heightForItemAt indexPath: SeedIndexPath, withWidth width: Double, defaultHeight: Double) -> Double {
        items[indexPath.item].height(forWidth: width, defaultHeight: defaultHeight)
    }
}

/// The baseline: a UICollectionViewLayout subclass the way the seeds write one. `prepare()` appends one
/// attributes object per item to `cache`; the rect query scans every one of them (seed 002).
class SeedCollectionViewLayout {
    let collectionView: SeedCollectionView
    let delegate: any SeedLayoutDelegate
    var cache: [SeedLayoutAttributes] = []
    var contentHeight = 0.0

    init(collectionView: SeedCollectionView, delegate: any SeedLayoutDelegate) {
        self.collectionView = collectionView
        self.delegate = delegate
    }

    /// Seed 002's `contentWidth`: the bounds minus the content insets.
    var contentWidth: Double {
        let insets = collectionView.contentInset
        return collectionView.bounds.width - (insets.left + insets.right)
    }

    var collectionViewContentSize: Size {
        Size(width: contentWidth, height: contentHeight)
    }

    func prepare() {}

    /// Seed 002's `layoutAttributesForElements(in:)`: a linear scan of the cache.
    func layoutAttributesForElements(in rect: Rect) -> [SeedLayoutAttributes] {
        var layoutAttributes: [SeedLayoutAttributes] = []
        for attributes in cache where attributes.frame.intersects(rect) {
            layoutAttributes.append(attributes)
        }
        return layoutAttributes
    }
}

enum SeedLayouts {
    /// The seed port for `input`'s layout (one section, no header or footer), or nil when none was ported.
    static func make(for input: LayoutInput) -> SeedCollectionViewLayout? {
        guard let section = input.sections.first, input.sections.count == 1 else { return nil }
        let collectionView = SeedCollectionView(bounds: input.bounds, contentInset: input.contentInsets, numberOfItems: section.items.count)
        let delegate = SeedItemSizes(section.items)
        switch input.parameters {
        case .list(let p): return SeedListLayout(collectionView: collectionView, delegate: delegate, parameters: p)
        case .mosaic(let p): return SeedMosaicLayout(collectionView: collectionView, delegate: delegate, parameters: p)
        case .waterfall(let p): return SeedWaterfallLayout(collectionView: collectionView, delegate: delegate, parameters: p)
        case .justified(let p): return FlickrJustifiedLayout(collectionView: collectionView, items: section.items, parameters: p)
        case .columnFlow, .columns, .flow: return nil
        }
    }

    /// Whether `kind` has a seed port.
    static func hasBaseline(_ kind: LayoutKind) -> Bool {
        switch kind {
        case .list, .mosaic, .waterfall, .justified: return true
        case .columnFlow, .columns, .flow: return false
        }
    }
}
