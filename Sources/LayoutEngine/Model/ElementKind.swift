/// The kinds of element a layout places.
public enum ElementKind: UInt8, Hashable, Sendable, CaseIterable {
    case cell
    case header
    case footer
    /// A `sectionBackground` decoration (zIndex -1).
    case decoration

    /// The name on the wire and in the docs.
    public var name: String {
        switch self {
        case .cell: return "cell"
        case .header: return "header"
        case .footer: return "footer"
        case .decoration: return "decoration"
        }
    }
}
