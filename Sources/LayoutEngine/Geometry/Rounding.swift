// Every rounding rule of LAYOUTS.md lives here, so each layout names the rule it uses.

extension Double {
    /// Half away from zero, as CGFloat's and Swift's default `rounded()`.
    @inlinable var roundedHalfAwayFromZero: Double { rounded(.toNearestOrAwayFromZero) }
    @inlinable var floored: Double { rounded(.down) }
    @inlinable var ceiled: Double { rounded(.up) }

    /// JavaScript's `Math.round`: half towards +∞ (`2.5` → `3`, `-2.5` → `-2`), as flickr's justified
    /// layout rounds. `x - floor(x)` is exact, so values just under a half (0.49999999999999994) stay
    /// down, unlike `floor(x + 0.5)`. Where JavaScript gives -0 (for -0.5 ≤ x < 0) this gives +0; the
    /// justified layout only subtracts the result from non-zero values, where the sign of a zero is lost.
    @inlinable var roundedHalfUp: Double {
        let down = rounded(.down)
        return self - down >= 0.5 ? down + 1 : down
    }
}

extension Rect {
    /// CGRect.integral: origin floored, max edges ceiled.
    @inlinable var integral: Rect {
        let minX = x.floored
        let minY = y.floored
        return Rect(x: minX, y: minY, width: maxX.ceiled - minX, height: maxY.ceiled - minY)
    }
}

extension Double {
    /// The section-local y that lands exactly on this content y once the section's `top` is added back
    /// (`local + top`, as every answer computes it). `self - top` alone can miss by an ulp when `top` has
    /// low bits this value lacks, which would turn an integral frame into a fractional one.
    func sectionLocal(below top: Double) -> Double {
        var local = self - top
        // Addition is monotonic, so at most a few steps toward the target; bounded in case no double lands
        // exactly (then the nearest one stays).
        for _ in 0..<4 where local + top < self { local = local.nextUp }
        for _ in 0..<4 where local + top > self { local = local.nextDown }
        return local
    }
}
