/// flickr's justified-layout 4.1.0 (LAYOUTS.md `justified`), with flickr's option names and defaults.
/// flickr's `containerPadding` is `sectionInsets`; its `containerWidth` is the content width `W`.
public struct JustifiedParameters: Hashable, Sendable {
    /// How the items of the last, unfilled row (the widows) are laid out when shown.
    public enum WidowLayoutStyle: String, Hashable, Sendable, CaseIterable {
        case left
        case justify
        case center
    }

    /// flickr's `boxSpacing`: between the items of a row, and between rows.
    public struct BoxSpacing: Hashable, Sendable {
        public var horizontal: Double
        public var vertical: Double

        public init(horizontal: Double = 0, vertical: Double = 0) {
            self.horizontal = horizontal
            self.vertical = vertical
        }

        /// The same spacing both ways.
        public init(all value: Double) {
            self.init(horizontal: value, vertical: value)
        }
    }

    /// The height rows aim for; > 0.
    public var targetRowHeight: Double = 320
    /// How far a row's height may stray from `targetRowHeight`, as a fraction of it; 0 to 1.
    public var targetRowHeightTolerance: Double = 0.25
    public var boxSpacing: BoxSpacing = BoxSpacing(all: 10)
    /// nil: no limit. Items past the last allowed row are left out (zero-size frames).
    public var maxNumRows: Int?
    /// nil is flickr's `false`; a ratio gives every item that aspect ratio.
    public var forceAspectRatio: Double?
    /// Whether the last, unfilled row is laid out (else its items are left out).
    public var showWidows: Bool = true
    /// nil is flickr's `false`; n makes every n-th row a full-width breakout row.
    public var fullWidthBreakoutRowCadence: Int?
    public var widowLayoutStyle: WidowLayoutStyle = .left
    /// flickr's `containerPadding`.
    public var sectionInsets: Insets = Insets(all: 10)
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public init() {}
}
