import LayoutTestKit
import LayoutEngine

/// CollectionViewListLayout (seed 003) written as the seeds write layouts: a running y, one attributes
/// object per item. Same frames as our `list` for one section without header or footer.
final class SeedListLayout: SeedCollectionViewLayout {
    private let parameters: ListParameters

    init(collectionView: SeedCollectionView, delegate: any SeedLayoutDelegate, parameters: ListParameters) {
        self.parameters = parameters
        super.init(collectionView: collectionView, delegate: delegate)
    }

    override func prepare() {
        cache = []
        let insets = parameters.sectionInsets
        let width = contentWidth - insets.left - insets.right
        var y = insets.top
        for item in 0..<collectionView.numberOfItems {
            let indexPath = SeedIndexPath(section: 0, item: item)
            if item > 0 { y += parameters.spacing }
            let height = delegate.collectionView(heightForItemAt: indexPath, withWidth: width, defaultHeight: parameters.itemHeight)
            let attributes = SeedLayoutAttributes(forCellWith: indexPath)
            attributes.frame = Rect(x: insets.left, y: y, width: width, height: height)
            cache.append(attributes)
            y += height
        }
        contentHeight = y + insets.bottom
    }
}
