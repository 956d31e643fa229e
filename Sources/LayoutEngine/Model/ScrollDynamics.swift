/// Seed 004's spring displacement at the instant of a scroll (LAYOUTS.md, Scroll dynamics): every cell's
/// centre moves along y by the scroll delta, limited by its distance from the touch over `resistance`.
///
/// Only the displacement at that instant: the springs' oscillation back to rest is the client's animation.
public struct ScrollDynamics: Hashable, Sendable {
    /// The scroll's change of the bounds' y (new minus old), as seed 004's `latestDelta`.
    public var scrollDelta: Double
    /// Where the finger is, in content coordinates. Exactly (0, 0) means no touch: nothing moves.
    public var touch: Point
    /// Points of distance from the touch per unit of scroll resistance; seed 004's 1500.
    public var resistance: Double

    public init(scrollDelta: Double, touch: Point, resistance: Double = ScrollDynamics.defaultResistance) {
        self.scrollDelta = scrollDelta
        self.touch = touch
        self.resistance = resistance
    }

    public static let defaultResistance = 1500.0
    /// The largest `|scrollDelta|`, `|touch.x|` and `|touch.y|`: far beyond any content coordinate (10^7
    /// items of at most 1e9 points), and small enough that every displaced frame stays finite.
    public static let maxMagnitude = 1e18
    /// Accepted resistances, as aspect ratios: a resistance near 0 would make displacements infinite.
    public static let resistanceRange = 1e-9...1e9

    /// Rejects values whose displacements could be non-finite; paths start at `dynamics`.
    public func validate() throws(LayoutError) {
        func check(_ value: Double, _ name: String) throws(LayoutError) {
            guard value.magnitude <= Self.maxMagnitude else {
                throw LayoutError(.invalidRequest, "must be a number from -\(Self.maxMagnitude) to \(Self.maxMagnitude), not \(value)", path: "dynamics.\(name)")
            }
        }
        try check(scrollDelta, "scrollDelta")
        try check(touch.x, "touch.x")
        try check(touch.y, "touch.y")
        guard Self.resistanceRange.contains(resistance) else {
            throw LayoutError(
                .invalidRequest,
                "must be a number from \(Self.resistanceRange.lowerBound) to \(Self.resistanceRange.upperBound), not \(resistance)",
                path: "dynamics.resistance"
            )
        }
    }

    /// Whether anything moves: seed 004 skips the displacement when the touch is `CGPointZero`.
    public var movesCells: Bool { touch.x != 0 || touch.y != 0 }

    /// How far a cell whose centre is at (`centreX`, `centreY`) moves along y, as seed 004 computes it:
    /// `scrollResistance = ((touch.y - centre.y) + (touch.x - centre.x)) / resistance` (signed distances),
    /// then `max(delta, delta * scrollResistance)` for a negative delta, else `min(…)`.
    @inline(__always)
    public func shift(centreX: Double, centreY: Double) -> Double {
        shift(scrollResistance: ((touch.y - centreY) + (touch.x - centreX)) / resistance)
    }

    @inline(__always)
    func shift(scrollResistance: Double) -> Double {
        let delta = scrollDelta
        return delta < 0 ? Swift.max(delta, delta * scrollResistance) : Swift.min(delta, delta * scrollResistance)
    }

    /// `frame` with its centre moved down by its shift, the origin derived from the centre as UIKit's
    /// `center` setter does: `y' = ((y + h/2) + shift) - h/2`; x, width and height are kept.
    @inline(__always)
    public func displaced(_ frame: Rect) -> Rect {
        let halfHeight = frame.height / 2
        let centreY = frame.y + halfHeight
        let moved = centreY + shift(centreX: frame.x + frame.width / 2, centreY: centreY)
        return Rect(x: frame.x, y: moved - halfHeight, width: frame.width, height: frame.height)
    }
}
