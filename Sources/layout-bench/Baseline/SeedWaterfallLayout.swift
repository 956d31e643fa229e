import LayoutTestKit
import LayoutEngine

/// Seed 002's PinterestLayout, ported line by line (with the column count, padding and default
/// height as parameters). Same frames as our `waterfall` for one section without header or footer.
final class SeedWaterfallLayout: SeedCollectionViewLayout {
    private let numberOfColumns: Int
    private let cellPadding: Double
    private let itemHeight: Double

    init(collectionView: SeedCollectionView, delegate: any SeedLayoutDelegate, parameters: WaterfallParameters) {
        numberOfColumns = parameters.columns
        cellPadding = parameters.cellPadding
        itemHeight = parameters.itemHeight
        super.init(collectionView: collectionView, delegate: delegate)
    }

    override func prepare() {
        cache = []
        contentHeight = 0

        let columnWidth = contentWidth / Double(numberOfColumns)
        var xOffset: [Double] = []
        for column in 0..<numberOfColumns {
            xOffset.append(Double(column) * columnWidth)
        }
        var yOffset = [Double](repeating: 0, count: numberOfColumns)

        for item in 0..<collectionView.numberOfItems {
            let indexPath = SeedIndexPath(section: 0, item: item)
            let width = columnWidth - cellPadding * 2
            let cellHeight = delegate.collectionView(heightForItemAt: indexPath, withWidth: width, defaultHeight: itemHeight)
            let height = cellHeight + 2 * cellPadding

            // The seed's two passes: the minimum, then its first index.
            var shortestColumn = 0
            if let minYOffset = yOffset.min() {
                shortestColumn = yOffset.firstIndex(of: minYOffset) ?? 0
            }

            let frame = Rect(x: xOffset[shortestColumn], y: yOffset[shortestColumn], width: columnWidth, height: height)
            let insetFrame = Rect(x: frame.x + cellPadding, y: frame.y + cellPadding, width: frame.width - 2 * cellPadding, height: frame.height - 2 * cellPadding)

            let attributes = SeedLayoutAttributes(forCellWith: indexPath)
            attributes.frame = insetFrame
            cache.append(attributes)

            contentHeight = Swift.max(contentHeight, frame.maxY)
            yOffset[shortestColumn] = yOffset[shortestColumn] + height
        }
    }
}
