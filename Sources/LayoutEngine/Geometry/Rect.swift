/// An axis-aligned rectangle; origin top-left, y grows down.
public struct Rect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    @inlinable public var minX: Double { x }
    @inlinable public var minY: Double { y }
    @inlinable public var maxX: Double { x + width }
    @inlinable public var maxY: Double { y + height }

    /// Positive-area overlap: touching edges do not count, and a point (zero width and height: where
    /// `justified` puts an item it leaves out) is in no rect (LAYOUTS.md, rect query).
    @inlinable
    public func intersects(_ other: Rect) -> Bool {
        minX < other.maxX && maxX > other.minX && minY < other.maxY && maxY > other.minY && (width > 0 || height > 0)
    }

    /// The same rectangle moved down by `dy`.
    @inlinable
    public func offsetBy(dy: Double) -> Rect {
        Rect(x: x, y: y + dy, width: width, height: height)
    }
}
