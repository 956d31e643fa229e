extension Rect {
    /// The rect mirrored horizontally inside `0...width`: `(width - (x + w), y, w, h)`.
    ///
    /// The one formula of right to left (LAYOUTS.md, Layout direction), written out so that a frame is
    /// mirrored the same way, bit for bit, wherever it is computed. A rect spanning `0...width` maps to
    /// itself exactly (`width - (0 + width)` is +0).
    @inlinable
    public func mirrored(inWidth width: Double) -> Rect {
        Rect(x: width - (x + self.width), y: y, width: self.width, height: height)
    }
}
