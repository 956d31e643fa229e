/// Everything a layout is computed from: bounds, parameters and sections.
public struct LayoutInput: Hashable, Sendable {
    /// Only the size matters; a scroll position never changes a layout.
    public var bounds: Size
    public var parameters: LayoutParameters
    public var contentInsets: Insets
    /// Adds one `sectionBackground` decoration per section.
    public var sectionBackgrounds: Bool
    /// Right to left mirrors every frame inside `mirrorWidth`. Kept by bounds changes and batches.
    public var layoutDirection: LayoutDirection
    public var sections: [Section]

    public init(
        bounds: Size, parameters: LayoutParameters, contentInsets: Insets = .zero, sectionBackgrounds: Bool = false,
        layoutDirection: LayoutDirection = .leftToRight, sections: [Section]
    ) {
        self.bounds = bounds
        self.parameters = parameters
        self.contentInsets = contentInsets
        self.sectionBackgrounds = sectionBackgrounds
        self.layoutDirection = layoutDirection
        self.sections = sections
    }

    /// `W`: the width frames are laid out in.
    public var contentWidth: Double { bounds.width - contentInsets.left - contentInsets.right }

    /// The width a layout spans and right to left mirrors in: `W`, except `bounds.width` for
    /// `columnFlow`, which ignores `contentInsets`. Section backgrounds are this wide.
    public var mirrorWidth: Double {
        parameters.kind == .columnFlow ? bounds.width : contentWidth
    }

    /// The number of items over all sections.
    public var itemCount: Int { sections.reduce(0) { $0 + $1.items.count } }

    /// The parameters that apply to section `index`.
    public func parameters(forSection index: Int) -> LayoutParameters {
        sections[index].parameters ?? parameters
    }

    /// Header height rule: the section's field, else its parameters, else the spec's; absent ⇔ ≤ 0.
    public func headerHeight(forSection index: Int) -> Double {
        sections[index].headerHeight ?? parameters(forSection: index).headerHeight
    }

    public func footerHeight(forSection index: Int) -> Double {
        sections[index].footerHeight ?? parameters(forSection: index).footerHeight
    }
}
