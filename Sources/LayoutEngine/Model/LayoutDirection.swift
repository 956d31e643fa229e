/// Which way a layout runs horizontally (LAYOUTS.md, Layout direction).
///
/// Right to left mirrors the left-to-right layout inside its mirror width, as UIKit does for a layout
/// whose `flipsHorizontallyInOppositeLayoutDirection` is true: every frame, headers, footers and
/// decorations included, becomes `Rect.mirrored(inWidth:)` of its left-to-right frame.
public enum LayoutDirection: String, Hashable, Sendable, CaseIterable {
    case leftToRight
    case rightToLeft
}
