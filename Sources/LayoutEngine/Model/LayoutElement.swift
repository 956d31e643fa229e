/// One placed element: what a query answers.
public struct LayoutElement: Hashable, Sendable {
    public var kind: ElementKind
    public var section: Int
    /// The item index for cells; 0 for headers, footers and decorations.
    public var item: Int
    public var frame: Rect

    public init(kind: ElementKind, section: Int, item: Int, frame: Rect) {
        self.kind = kind
        self.section = section
        self.item = item
        self.frame = frame
    }

    /// -1 for decorations (behind everything), 0 otherwise.
    public var zIndex: Int { kind == .decoration ? -1 : 0 }

    /// The decoration's element kind name; nil for other kinds.
    public var decorationKind: String? { kind == .decoration ? "sectionBackground" : nil }
}
