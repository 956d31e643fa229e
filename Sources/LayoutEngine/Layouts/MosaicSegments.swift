/// The four shapes of a mosaic segment, named as in seed 000.
enum MosaicSegmentStyle: Hashable, Sendable {
    /// One item, the whole segment.
    case fullWidth
    /// Left half, right half.
    case fiftyFifty
    /// Left ⅔, then top-right and bottom-right.
    case twoThirdsOneThird
    /// Top-left and bottom-left, then right ⅔.
    case oneThirdTwoThirds

    /// How many items a segment of this style holds.
    var itemCount: Int {
        switch self {
        case .fullWidth: return 1
        case .fiftyFifty: return 2
        case .twoThirdsOneThird, .oneThirdTwoThirds: return 3
        }
    }
}

/// Which items each segment of a mosaic section holds and which style it takes, as closed forms of the
/// segment index and the item count.
///
/// Seed 000 walks the segments one by one: fullWidth first, then fiftyFifty → twoThirdsOneThird →
/// oneThirdTwoThirds → fiftyFifty …, except that with 1 item left the next segment is fullWidth and with
/// 2 left it is fiftyFifty. Either override takes every remaining item, so it only ever hits the last
/// segment, and every earlier segment follows the plain cycle: segment 0 holds item 0, then cycles of three
/// segments hold 2 + 3 + 3 = 8 items. The last segment is the one the plain cycle puts the last item in,
/// because an override never holds more items than the cycle's style would.
struct MosaicSegmentPattern: Hashable, Sendable {
    /// Items in the section.
    let itemCount: Int

    /// Items per cycle of three segments after segment 0.
    static let itemsPerCycle = 8

    /// The number of segments the section's items fill.
    var segmentCount: Int {
        itemCount == 0 ? 0 : Self.locate(item: itemCount - 1).segment + 1
    }

    /// The first item of segment `segment` (which must not lie past the last segment).
    static func firstItem(ofSegment segment: Int) -> Int {
        guard segment > 0 else { return 0 }
        let (cycle, step) = (segment - 1).quotientAndRemainder(dividingBy: 3)
        return 1 + cycle * itemsPerCycle + offsetInCycle(ofStep: step)
    }

    /// The segment holding `item` and the item's position inside it.
    static func locate(item: Int) -> (segment: Int, position: Int) {
        guard item > 0 else { return (0, 0) }
        let (cycle, offset) = (item - 1).quotientAndRemainder(dividingBy: itemsPerCycle)
        let step = offset < 2 ? 0 : (offset < 5 ? 1 : 2)
        return (1 + cycle * 3 + step, offset - offsetInCycle(ofStep: step))
    }

    /// The style of segment `segment`, the end-of-section overrides included.
    func style(ofSegment segment: Int) -> MosaicSegmentStyle {
        guard segment > 0 else { return .fullWidth }
        switch itemCount - Self.firstItem(ofSegment: segment) {
        case 1: return .fullWidth
        case 2: return .fiftyFifty
        default:
            switch (segment - 1) % 3 {
            case 0: return .fiftyFifty
            case 1: return .twoThirdsOneThird
            default: return .oneThirdTwoThirds
            }
        }
    }

    /// Where step 0, 1, 2 of a cycle (fiftyFifty, twoThirdsOneThird, oneThirdTwoThirds) starts inside it.
    private static func offsetInCycle(ofStep step: Int) -> Int {
        step == 0 ? 0 : (step == 1 ? 2 : 5)
    }
}
