extension PreparedLayout {
    /// Every element whose frame overlaps `rect` with positive area once `dynamics` has displaced the
    /// cells, in layout order; cells carry their displaced frames, headers, footers and decorations stay
    /// (LAYOUTS.md, Scroll dynamics). With no touch, a plain rect query.
    ///
    /// Exact for every input: the index is walked with boxes moved by the least and the most shift any
    /// cell inside them can get, so a cell that the displacement brings into `rect` from afar is found,
    /// and each candidate is then tested with its own displaced frame.
    public func forEachElement(in rect: Rect, displacedBy dynamics: ScrollDynamics, _ body: (LayoutElement) -> Void) {
        guard dynamics.movesCells else {
            forEachElement(in: rect, body)
            return
        }
        withScanner { scanner in
            index.forEachCandidateRange(where: DisplacedBoxesOverlapping(rect: rect, dynamics: dynamics)) { range in
                scanner.forEach(inOrdinals: range, where: EveryFrame()) { element in
                    var element = element
                    if element.kind == .cell { element.frame = dynamics.displaced(element.frame) }
                    if element.frame.intersects(rect) { body(element) }
                }
            }
        }
    }
}

/// Boxes that may hold an element overlapping `rect` once displaced.
///
/// Every centre of a cell inside a box lies inside it, and the scroll resistance only falls as the centre
/// moves down or right, also in floating point (its subtractions, sum and division round monotonically),
/// so every cell's shift lies between the shifts at the box's corners. Shift 0 is added to that range
/// for the elements that do not move, and a relative slack for the rounding of the displaced origin.
struct DisplacedBoxesOverlapping: BoxTest {
    let rect: Rect
    let dynamics: ScrollDynamics

    @inline(__always)
    func accepts(_ box: RectIndex.Box) -> Bool {
        guard box.minX < rect.maxX, box.maxX > rect.minX else { return false }
        let touch = dynamics.touch
        let resistance = dynamics.resistance
        let atBottomRight = dynamics.shift(scrollResistance: ((touch.y - box.maxY) + (touch.x - box.maxX)) / resistance)
        let atTopLeft = dynamics.shift(scrollResistance: ((touch.y - box.minY) + (touch.x - box.minX)) / resistance)
        let least = Swift.min(atBottomRight, atTopLeft, 0)
        let most = Swift.max(atBottomRight, atTopLeft, 0)
        let slack = 1e-9 * (box.minY.magnitude + box.maxY.magnitude + least.magnitude + most.magnitude + 1)
        return box.minY + least - slack < rect.maxY && box.maxY + most + slack > rect.minY
    }
}
