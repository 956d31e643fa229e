import LayoutTestKit
import LayoutEngine

/// Seed 000's MosaicLayout, ported line by line (segment height and the 1-point gap as parameters).
/// Same frames as our `mosaic` for one section without header or footer; like the seed, its content
/// size leaves out the last item (one of the deviations LAYOUTS.md fixes).
final class SeedMosaicLayout: SeedCollectionViewLayout {
    private enum MosaicSegmentStyle {
        case fullWidth
        case fiftyFifty
        case twoThirdsOneThird
        case oneThirdTwoThirds
    }

    private let segmentHeight: Double
    private let spacing: Double
    private var contentBounds = Rect.zero

    init(collectionView: SeedCollectionView, delegate: any SeedLayoutDelegate, parameters: MosaicParameters) {
        segmentHeight = parameters.segmentHeight
        spacing = parameters.spacing
        super.init(collectionView: collectionView, delegate: delegate)
    }

    override func prepare() {
        cache = []
        contentBounds = Rect(x: 0, y: 0, width: collectionView.bounds.width, height: collectionView.bounds.height)

        let count = collectionView.numberOfItems
        var currentIndex = 0
        var segment = MosaicSegmentStyle.fullWidth
        var lastFrame = Rect.zero
        let cvWidth = contentWidth

        while currentIndex < count {
            let segmentFrame = Rect(x: 0, y: lastFrame.maxY + spacing, width: cvWidth, height: segmentHeight)
            var segmentRects: [Rect] = []
            switch segment {
            case .fullWidth:
                segmentRects = [segmentFrame]
            case .fiftyFifty:
                let horizontalSlices = segmentFrame.dividedIntegral(fraction: 0.5, alongX: true, spacing: spacing)
                segmentRects = [horizontalSlices.first, horizontalSlices.second]
            case .twoThirdsOneThird:
                let horizontalSlices = segmentFrame.dividedIntegral(fraction: 2.0 / 3.0, alongX: true, spacing: spacing)
                let verticalSlices = horizontalSlices.second.dividedIntegral(fraction: 0.5, alongX: false, spacing: spacing)
                segmentRects = [horizontalSlices.first, verticalSlices.first, verticalSlices.second]
            case .oneThirdTwoThirds:
                let horizontalSlices = segmentFrame.dividedIntegral(fraction: 1.0 / 3.0, alongX: true, spacing: spacing)
                let verticalSlices = horizontalSlices.first.dividedIntegral(fraction: 0.5, alongX: false, spacing: spacing)
                segmentRects = [verticalSlices.first, verticalSlices.second, horizontalSlices.second]
            }

            // The seed does not stop at `count` inside a segment; the style choice below guarantees a
            // segment never has more rects than items left, but the guard keeps the port safe anyway.
            for rect in segmentRects where currentIndex < count {
                let attributes = SeedLayoutAttributes(forCellWith: SeedIndexPath(section: 0, item: currentIndex))
                attributes.frame = rect
                cache.append(attributes)
                contentBounds = contentBounds.union(lastFrame)
                currentIndex += 1
                lastFrame = rect
            }

            switch count - currentIndex {
            case 1:
                segment = .fullWidth
            case 2:
                segment = .fiftyFifty
            default:
                switch segment {
                case .fullWidth: segment = .fiftyFifty
                case .fiftyFifty: segment = .twoThirdsOneThird
                case .twoThirdsOneThird: segment = .oneThirdTwoThirds
                case .oneThirdTwoThirds: segment = .fiftyFifty
                }
            }
        }
        contentHeight = contentBounds.maxY
    }
}

extension Rect {
    /// The seed's `CGRect.dividedIntegral(fraction:from:)` from the min edge: the first part is
    /// `ceil(size * fraction)` long, the rest starts `spacing` after it and is `spacing` shorter.
    fileprivate func dividedIntegral(fraction: Double, alongX: Bool, spacing: Double) -> (first: Rect, second: Rect) {
        let dimension = alongX ? width : height
        // CGRect.divided(atDistance:) never cuts more than the whole.
        let distance = Swift.min(dimension, (dimension * fraction).rounded(.up))
        if alongX {
            let first = Rect(x: x, y: y, width: distance, height: height)
            let second = Rect(x: x + distance + spacing, y: y, width: width - distance - spacing, height: height)
            return (first, second)
        }
        let first = Rect(x: x, y: y, width: width, height: distance)
        let second = Rect(x: x, y: y + distance + spacing, width: width, height: height - distance - spacing)
        return (first, second)
    }

    /// CGRect.union, as the seed grows `contentBounds`; the zero rect counts as a point at the origin here,
    /// which is harmless because the seed starts from the bounds rect.
    fileprivate func union(_ other: Rect) -> Rect {
        let minX = Swift.min(self.minX, other.minX)
        let minY = Swift.min(self.minY, other.minY)
        let maxX = Swift.max(self.maxX, other.maxX)
        let maxY = Swift.max(self.maxY, other.maxY)
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
