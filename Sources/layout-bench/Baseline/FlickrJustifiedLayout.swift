import LayoutTestKit
import LayoutEngine

/// flickr's justified-layout 4.1.0 written the way its JavaScript is: one object per item (its
/// `itemData`, copied by `Object.assign` when a row accepts it), one `Row` object per row, each `addItem`
/// building the row-with-the-item array (`items.concat(itemData)`) and summing its ratios again
/// (`reduce`), then one attributes object per box. Same frames as our `justified` for one section
/// without header or footer.
///
/// One liberty: flickr gathers the boxes with `_layoutItems = _layoutItems.concat(row.items)`, copying
/// the whole list once per row; that is quadratic (flickr takes about two minutes for 10^5 items on
/// node, and 10^6 would take hours), so the port appends instead.
final class FlickrJustifiedLayout: SeedCollectionViewLayout {
    /// A JavaScript object: `{aspectRatio}` in, with `top`, `width`, `height`, `left` added.
    final class Box {
        var aspectRatio: Double
        var top = 0.0
        var width = 0.0
        var height = 0.0
        var left = 0.0

        init(aspectRatio: Double) {
            self.aspectRatio = aspectRatio
        }

        func copy() -> Box {
            Box(aspectRatio: aspectRatio)
        }
    }

    final class Row {
        let top: Double
        let left: Double
        let width: Double
        let spacing: Double
        let targetRowHeight: Double
        let minAspectRatio: Double
        let maxAspectRatio: Double
        let edgeCaseMinRowHeight: Double
        let edgeCaseMaxRowHeight: Double
        let widowLayoutStyle: JustifiedParameters.WidowLayoutStyle
        let isBreakoutRow: Bool
        var items: [Box] = []
        var height = 0.0

        init(top: Double, left: Double, width: Double, parameters p: JustifiedParameters, isBreakoutRow: Bool) {
            self.top = top
            self.left = left
            self.width = width
            spacing = p.boxSpacing.horizontal
            targetRowHeight = p.targetRowHeight
            minAspectRatio = width / p.targetRowHeight * (1 - p.targetRowHeightTolerance)
            maxAspectRatio = width / p.targetRowHeight * (1 + p.targetRowHeightTolerance)
            edgeCaseMinRowHeight = 0.5 * p.targetRowHeight
            edgeCaseMaxRowHeight = 2 * p.targetRowHeight
            widowLayoutStyle = p.widowLayoutStyle
            self.isBreakoutRow = isBreakoutRow
        }

        var isLayoutComplete: Bool { height > 0 }

        func addItem(_ itemData: Box) -> Bool {
            let newItems = items + [itemData]
            let rowWidthWithoutSpacing = width - Double(newItems.count - 1) * spacing
            let newAspectRatio = newItems.reduce(0) { $0 + $1.aspectRatio }
            let targetAspectRatio = rowWidthWithoutSpacing / targetRowHeight
            if isBreakoutRow, items.isEmpty, itemData.aspectRatio >= 1 {
                items.append(itemData)
                completeLayout(rowWidthWithoutSpacing / itemData.aspectRatio, style: .justify)
                return true
            }
            if newAspectRatio < minAspectRatio {
                items.append(itemData.copy())
                return true
            } else if newAspectRatio > maxAspectRatio {
                if items.isEmpty {
                    items.append(itemData.copy())
                    completeLayout(rowWidthWithoutSpacing / newAspectRatio, style: .justify)
                    return true
                }
                let previousRowWidthWithoutSpacing = width - Double(items.count - 1) * spacing
                let previousAspectRatio = items.reduce(0) { $0 + $1.aspectRatio }
                let previousTargetAspectRatio = previousRowWidthWithoutSpacing / targetRowHeight
                if abs(newAspectRatio - targetAspectRatio) > abs(previousAspectRatio - previousTargetAspectRatio) {
                    completeLayout(previousRowWidthWithoutSpacing / previousAspectRatio, style: .justify)
                    return false
                }
                items.append(itemData.copy())
                completeLayout(rowWidthWithoutSpacing / newAspectRatio, style: .justify)
                return true
            }
            items.append(itemData.copy())
            completeLayout(rowWidthWithoutSpacing / newAspectRatio, style: .justify)
            return true
        }

        func completeLayout(_ newHeight: Double, style: JustifiedParameters.WidowLayoutStyle) {
            var itemWidthSum = left
            let rowWidthWithoutSpacing = width - Double(items.count - 1) * spacing
            let clampedHeight = max(edgeCaseMinRowHeight, min(newHeight, edgeCaseMaxRowHeight))
            let clampedToNativeRatio: Double
            if newHeight != clampedHeight {
                height = clampedHeight
                clampedToNativeRatio = (rowWidthWithoutSpacing / clampedHeight) / (rowWidthWithoutSpacing / newHeight)
            } else {
                height = newHeight
                clampedToNativeRatio = 1.0
            }
            for item in items {
                item.top = top
                item.width = item.aspectRatio * height * clampedToNativeRatio
                item.height = height
                item.left = itemWidthSum
                itemWidthSum += item.width + spacing
            }
            switch style {
            case .justify:
                itemWidthSum -= spacing + left
                let errorWidthPerItem = (itemWidthSum - width) / Double(items.count)
                let roundedCumulativeErrors = items.indices.map { (Double($0 + 1) * errorWidthPerItem).mathRound }
                if items.count == 1 {
                    items[0].width -= errorWidthPerItem.mathRound
                } else {
                    for (i, item) in items.enumerated() {
                        if i > 0 {
                            item.left -= roundedCumulativeErrors[i - 1]
                            item.width -= roundedCumulativeErrors[i] - roundedCumulativeErrors[i - 1]
                        } else {
                            item.width -= roundedCumulativeErrors[i]
                        }
                    }
                }
            case .center:
                let centerOffset = (width - itemWidthSum) / 2
                for item in items { item.left += centerOffset + spacing }
            case .left:
                break
            }
        }

        func forceComplete(rowHeight: Double?) {
            completeLayout(rowHeight ?? targetRowHeight, style: widowLayoutStyle)
        }
    }

    private let parameters: JustifiedParameters
    private let items: ItemSizes

    init(collectionView: SeedCollectionView, items: ItemSizes, parameters: JustifiedParameters) {
        self.parameters = parameters
        self.items = items
        super.init(collectionView: collectionView, delegate: SeedItemSizes(items))
    }

    /// The input's aspect ratios, by the rule of LAYOUTS.md `justified` (`input.map` in flickr).
    private func itemLayoutData() -> [Box] {
        (0..<collectionView.numberOfItems).map { i in
            let item = items[i]
            if let forced = parameters.forceAspectRatio { return Box(aspectRatio: forced) }
            if let r = item.aspectRatio { return Box(aspectRatio: r) }
            if let w = item.width, let h = item.height, w > 0, h > 0 { return Box(aspectRatio: min(max(w / h, 1e-9), 1e9)) }
            return Box(aspectRatio: 1)
        }
    }

    override func prepare() {
        let p = parameters
        let padding = p.sectionInsets
        var layoutItems: [Box] = []
        var rows: [Row] = []
        var containerHeight = padding.top

        func createNewRow() -> Row {
            let isBreakoutRow = p.fullWidthBreakoutRowCadence.map { (rows.count + 1) % $0 == 0 } ?? false
            return Row(
                top: containerHeight, left: padding.left, width: contentWidth - padding.left - padding.right,
                parameters: p, isBreakoutRow: isBreakoutRow
            )
        }
        func addRow(_ row: Row) {
            rows.append(row)
            layoutItems.append(contentsOf: row.items)
            containerHeight += row.height + p.boxSpacing.vertical
        }

        let maxNumRows = p.maxNumRows ?? Int.max
        var currentRow: Row?
        for itemData in itemLayoutData() {
            let row = currentRow ?? createNewRow()
            currentRow = row
            let itemAdded = row.addItem(itemData)
            guard row.isLayoutComplete else { continue }
            addRow(row)
            if rows.count >= maxNumRows {
                currentRow = nil
                break
            }
            currentRow = createNewRow()
            if !itemAdded, let next = currentRow {
                _ = next.addItem(itemData)
                if next.isLayoutComplete {
                    addRow(next)
                    if rows.count >= maxNumRows {
                        currentRow = nil
                        break
                    }
                    currentRow = createNewRow()
                }
            }
        }
        if let row = currentRow, !row.items.isEmpty, p.showWidows {
            if let last = rows.last {
                row.forceComplete(rowHeight: last.isBreakoutRow ? last.targetRowHeight : last.height)
            } else {
                row.forceComplete(rowHeight: nil)
            }
            addRow(row)
        }
        containerHeight = containerHeight - p.boxSpacing.vertical
        containerHeight = containerHeight + padding.bottom

        cache = layoutItems.enumerated().map { item, box in
            let attributes = SeedLayoutAttributes(forCellWith: SeedIndexPath(section: 0, item: item))
            attributes.frame = Rect(x: box.left, y: box.top, width: box.width, height: box.height)
            return attributes
        }
        contentHeight = containerHeight
    }
}

private extension Double {
    /// JavaScript's `Math.round`.
    var mathRound: Double {
        let down = rounded(.down)
        return self - down >= 0.5 ? down + 1 : down
    }
}
