/// Headers and footers a rect query pins to its rect's edges (the request's `pin`).
public struct QueryPinning: Sendable, Hashable {
    public var headers: Bool
    public var footers: Bool

    public init(headers: Bool = false, footers: Bool = false) {
        self.headers = headers
        self.footers = footers
    }

    var jsonValue: [String: Any] { ["headers": headers, "footers": footers] }
}

/// Seed 004's scroll displacement of a rect query's cells (the request's `dynamics`).
public struct QueryDynamics: Sendable, Hashable {
    /// The scroll's change of the bounds' y.
    public var scrollDelta: Double
    /// The touch in content coordinates; (0, 0) moves nothing.
    public var touchX: Double
    public var touchY: Double
    /// nil: the daemon's default (1500).
    public var resistance: Double?

    public init(scrollDelta: Double, touchX: Double, touchY: Double, resistance: Double? = nil) {
        self.scrollDelta = scrollDelta
        self.touchX = touchX
        self.touchY = touchY
        self.resistance = resistance
    }

    var jsonValue: [String: Any] {
        var value: [String: Any] = ["scrollDelta": scrollDelta, "touch": ["x": touchX, "y": touchY]]
        if let resistance { value["resistance"] = resistance }
        return value
    }
}
