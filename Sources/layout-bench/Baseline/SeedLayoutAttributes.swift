import LayoutTestKit
import LayoutEngine

/// IndexPath as the seeds use it: section and item.
struct SeedIndexPath: Hashable {
    var section: Int
    var item: Int
}

/// One heap object per element, as UICollectionViewLayoutAttributes is (frame, index path, category,
/// zIndex; the real class carries more: center, size, transform3D, alpha, …, so this is the cheap end).
final class SeedLayoutAttributes {
    var frame: Rect = .zero
    let indexPath: SeedIndexPath
    let representedElementCategory: ElementKind
    var zIndex = 0

    init(forCellWith indexPath: SeedIndexPath) {
        self.indexPath = indexPath
        representedElementCategory = .cell
    }
}
