/// The layouts.
public enum LayoutKind: String, Hashable, Sendable, CaseIterable {
    case columnFlow
    case mosaic
    case waterfall
    case list
    case columns
    case flow
    case justified
}

/// A layout's type and parameters (the wire's `spec`).
public enum LayoutParameters: Hashable, Sendable {
    case columnFlow(ColumnFlowParameters)
    case mosaic(MosaicParameters)
    case waterfall(WaterfallParameters)
    case list(ListParameters)
    case columns(ColumnsParameters)
    case flow(FlowParameters)
    case justified(JustifiedParameters)

    public var kind: LayoutKind {
        switch self {
        case .columnFlow: return .columnFlow
        case .mosaic: return .mosaic
        case .waterfall: return .waterfall
        case .list: return .list
        case .columns: return .columns
        case .flow: return .flow
        case .justified: return .justified
        }
    }

    /// The default parameters of a layout kind.
    public static func defaults(for kind: LayoutKind) -> LayoutParameters {
        switch kind {
        case .columnFlow: return .columnFlow(ColumnFlowParameters())
        case .mosaic: return .mosaic(MosaicParameters())
        case .waterfall: return .waterfall(WaterfallParameters())
        case .list: return .list(ListParameters())
        case .columns: return .columns(ColumnsParameters())
        case .flow: return .flow(FlowParameters())
        case .justified: return .justified(JustifiedParameters())
        }
    }

    /// The spec-level header height (used when a section sets none).
    public var headerHeight: Double {
        switch self {
        case .columnFlow(let p): return p.headerHeight
        case .mosaic(let p): return p.headerHeight
        case .waterfall(let p): return p.headerHeight
        case .list(let p): return p.headerHeight
        case .columns(let p): return p.headerHeight
        case .flow(let p): return p.headerHeight
        case .justified(let p): return p.headerHeight
        }
    }

    /// The spec-level footer height (used when a section sets none).
    public var footerHeight: Double {
        switch self {
        case .columnFlow(let p): return p.footerHeight
        case .mosaic(let p): return p.footerHeight
        case .waterfall(let p): return p.footerHeight
        case .list(let p): return p.footerHeight
        case .columns(let p): return p.footerHeight
        case .flow(let p): return p.footerHeight
        case .justified(let p): return p.footerHeight
        }
    }
}
