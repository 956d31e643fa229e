/// Which supplementary elements a rect query pins to the edges of its rect, taken as the visible bounds
/// (LAYOUTS.md, Pinned headers and footers): UIKit's `sectionHeadersPinToVisibleBounds` and
/// `sectionFootersPinToVisibleBounds`.
public struct Pinning: Hashable, Sendable {
    /// Headers stick to the rect's top while their section is in it.
    public var headers: Bool
    /// Footers stick to the rect's bottom while their section is in it.
    public var footers: Bool

    public init(headers: Bool = false, footers: Bool = false) {
        self.headers = headers
        self.footers = footers
    }

    /// Nothing pinned: a plain rect query.
    public static let none = Pinning()

    /// The zIndex of every header or footer a pinning query returns for a pinned kind: above the cells
    /// (0) and the section backgrounds (-1), so a pinned header is drawn over the cells it floats on.
    public static let pinnedZIndex = 1

    /// Whether anything is pinned.
    public var pinsAny: Bool { headers || footers }

    /// Whether elements of `kind` are pinned.
    @inline(__always)
    public func pins(_ kind: ElementKind) -> Bool {
        switch kind {
        case .header: return headers
        case .footer: return footers
        case .cell, .decoration: return false
        }
    }

    /// The zIndex an element of `kind` has in this query's answer.
    public func zIndex(of kind: ElementKind) -> Int {
        pins(kind) ? Self.pinnedZIndex : (kind == .decoration ? -1 : 0)
    }
}
