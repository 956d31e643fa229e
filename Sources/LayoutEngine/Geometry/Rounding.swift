// Every rounding rule of LAYOUTS.md lives here, so each layout names the rule it uses.

extension Double {
    /// Half away from zero, as CGFloat's and Swift's default `rounded()`.
    @inlinable var roundedHalfAwayFromZero: Double { rounded(.toNearestOrAwayFromZero) }
    @inlinable var floored: Double { rounded(.down) }
    @inlinable var ceiled: Double { rounded(.up) }
}

extension Rect {
    /// CGRect.integral: origin floored, max edges ceiled.
    @inlinable var integral: Rect {
        let minX = x.floored
        let minY = y.floored
        return Rect(x: minX, y: minY, width: maxX.ceiled - minX, height: maxY.ceiled - minY)
    }
}
