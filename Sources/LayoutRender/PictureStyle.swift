/// How a picture is drawn.
public struct PictureStyle: Hashable, Sendable {
    /// The width, in px, that the picture's extent is drawn at: one point is `width / extent.width` px.
    /// Default 800. A value that is not a positive finite number counts as the default.
    public var width: Double
    /// Whether the title and the legend (a swatch and a count per kind drawn, and the rect) are drawn
    /// above the picture. Default true.
    public var showsLegend: Bool
    /// Whether elements are labelled with their index where the label fits. Default true.
    public var showsLabels: Bool

    public init(width: Double = 800, showsLegend: Bool = true, showsLabels: Bool = true) {
        self.width = width
        self.showsLegend = showsLegend
        self.showsLabels = showsLabels
    }

    /// The width actually used.
    var drawingWidth: Double { width.isFinite && width > 0 ? width : 800 }
}
