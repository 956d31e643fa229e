// Geometry rules: parameters that are each valid on their own but, at this width, would make a layout's
// formulas give a negative width or height (or a non-finite one). Each rule evaluates the layout's own
// expression (the same geometry types where there is one), so "accepted" means exactly "no negative size",
// and a size of exactly 0 is accepted.
//
// Checked per section with the parameters that section is laid out with: a section with no `params` blames
// `spec.<field>`; a section with its own blames `sections[s].params.<field>` when it set that field to
// something other than the spec's value, else `spec.<field>` (the value came from there). A spec no section
// uses is not checked: its formulas never run.

extension LayoutInput {
    /// Rejects section `index` if its layout's formulas would produce a negative or non-finite size.
    /// Expects everything `validate` checks before it (finite non-negative parameters, matching kinds).
    func validateGeometry(ofSection index: Int) throws(LayoutError) {
        let hasOwn = sections[index].parameters != nil
        let W = contentWidth
        switch (parameters(forSection: index), parameters) {
        case let (.list(p), .list(spec)):
            try ListGeometry.check(origin(p, spec, hasOwn, index), contentWidth: W)
        case let (.columns(p), .columns(spec)):
            try ColumnsGeometry.check(origin(p, spec, hasOwn, index), contentWidth: W)
        case let (.flow(p), .flow(spec)):
            try FlowGeometry.check(origin(p, spec, hasOwn, index), contentWidth: W)
        case let (.justified(p), .justified(spec)):
            try JustifiedGeometry.check(origin(p, spec, hasOwn, index), contentWidth: W)
        case let (.waterfall(p), .waterfall(spec)):
            try WaterfallGeometry.check(origin(p, spec, hasOwn, index), contentWidth: W)
        case let (.columnFlow(p), .columnFlow(spec)):
            try ColumnFlowGeometry.check(origin(p, spec, hasOwn, index), boundsWidth: bounds.width)
        case let (.mosaic(p), .mosaic(spec)):
            try MosaicGeometryRules.check(
                origin(p, spec, hasOwn, index), contentWidth: W,
                itemCount: sections[index].items.count, widthPath: contentInsets.horizontal > 0 ? "contentInsets" : "bounds.width"
            )
        default:
            // A section's kind differing from the spec's is rejected before geometry is checked.
            break
        }
    }

    private func origin<P>(_ parameters: P, _ spec: P, _ hasOwn: Bool, _ section: Int) -> ParameterOrigin<P> {
        ParameterOrigin(parameters: parameters, spec: hasOwn ? spec : nil, section: section)
    }
}

/// The parameters one section is laid out with, and where each value was written.
struct ParameterOrigin<Parameters> {
    let parameters: Parameters
    /// The spec's parameters when the section has its own (already merged) parameters; nil otherwise.
    let spec: Parameters?
    let section: Int

    /// Whether the section set `field` to a value other than the spec's.
    func overrides<Value: Equatable>(_ field: KeyPath<Parameters, Value>) -> Bool {
        guard let spec else { return false }
        return spec[keyPath: field] != parameters[keyPath: field]
    }

    /// The JSON path of the value of `field` the section uses.
    func path<Value: Equatable>(_ name: String, _ field: KeyPath<Parameters, Value>) -> String {
        overrides(field) ? "sections[\(section)].params.\(name)" : "spec.\(name)"
    }

    func error<Value: Equatable>(_ name: String, _ field: KeyPath<Parameters, Value>, _ message: String) -> LayoutError {
        LayoutError(.invalidRequest, message, path: path(name, field))
    }
}

/// A size a rule accepts: finite and not negative (NaN fails both).
func isPlaceable(_ size: Double) -> Bool {
    size >= 0 && size.isFinite
}

func insetsMessage(_ name: String, _ insets: Insets, exceed width: Double, _ what: String) -> String {
    "\(name).left + right (\((insets.left + insets.right).messageText)) exceed \(what) (\(width.messageText))"
}

enum ListGeometry {
    /// Items are `W - inset.left - inset.right` wide.
    static func check(_ origin: ParameterOrigin<ListParameters>, contentWidth W: Double) throws(LayoutError) {
        let insets = origin.parameters.sectionInsets
        guard isPlaceable(W - insets.left - insets.right) else {
            throw origin.error("sectionInsets", \.sectionInsets, insetsMessage("sectionInsets", insets, exceed: W, "the content width"))
        }
    }
}

enum ColumnsGeometry {
    /// `Wi = W - inset.left - inset.right` and `colW = round((Wi - (n-1)*columnSpacing) / n)` must not be negative.
    static func check(_ origin: ParameterOrigin<ColumnsParameters>, contentWidth W: Double) throws(LayoutError) {
        let p = origin.parameters
        let inner = W - p.sectionInsets.left - p.sectionInsets.right
        guard isPlaceable(inner) else {
            throw origin.error("sectionInsets", \.sectionInsets, insetsMessage("sectionInsets", p.sectionInsets, exceed: W, "the content width"))
        }
        let grid = ColumnsGrid(parameters: p, contentWidth: W)
        guard isPlaceable(grid.columnWidth) else {
            let n = grid.count
            let message = "\(n) columns with columnSpacing \(p.columnSpacing.messageText) do not fit the width inside the sectionInsets "
                + "(\(inner.messageText)): round((\(inner.messageText) - \(n - 1) × \(p.columnSpacing.messageText)) / \(n)) = \(grid.columnWidth.messageText)"
            // Too many columns is the usual cause; the spacing only when that is what the section changed.
            if origin.overrides(\.columnSpacing) && !origin.overrides(\.columnCount) {
                throw origin.error("columnSpacing", \.columnSpacing, message)
            }
            throw origin.error("columnCount", \.columnCount, message)
        }
    }
}

enum FlowGeometry {
    /// Rows are `Wr = W - inset.left - inset.right` wide; below 0, scaling a wide item to fit divides into
    /// a negative width (and a zero-width item into an infinity).
    static func check(_ origin: ParameterOrigin<FlowParameters>, contentWidth W: Double) throws(LayoutError) {
        let insets = origin.parameters.sectionInsets
        guard isPlaceable(W - insets.left - insets.right) else {
            throw origin.error("sectionInsets", \.sectionInsets, insetsMessage("sectionInsets", insets, exceed: W, "the content width"))
        }
    }
}

enum WaterfallGeometry {
    /// `sectionInsets.left + right` must fit W; the column width (`columnWidth`, or
    /// `(W - left - right - (n-1)*columnSpacing) / n`) must not be negative, nor the item width
    /// `columnWidth - 2 * cellPadding`. A fixed `columnWidth` may reach past W.
    static func check(_ origin: ParameterOrigin<WaterfallParameters>, contentWidth W: Double) throws(LayoutError) {
        let p = origin.parameters
        let insets = p.sectionInsets
        let inner = W - insets.left - insets.right
        guard isPlaceable(inner) else {
            throw origin.error("sectionInsets", \.sectionInsets, insetsMessage("sectionInsets", insets, exceed: W, "the content width"))
        }
        let padding = p.cellPadding
        let grid = WaterfallGrid(parameters: p, contentWidth: W)
        if let fixed = p.columnWidth {
            if isPlaceable(fixed - 2 * padding) { return }
            let message = "columnWidth (\(fixed.messageText)) is narrower than 2 × cellPadding (\((2 * padding).messageText))"
            if origin.overrides(\.cellPadding) && !origin.overrides(\.columnWidth) {
                throw origin.error("cellPadding", \.cellPadding, message)
            }
            throw origin.error("columnWidth", \.columnWidth, message)
        }
        guard isPlaceable(grid.columnWidth) else {
            let n = p.columns
            let message = "\(n) columns with columnSpacing \(p.columnSpacing.messageText) do not fit the width inside the sectionInsets "
                + "(\(inner.messageText)): (\(inner.messageText) - \(n - 1) × \(p.columnSpacing.messageText)) / \(n) = \(grid.columnWidth.messageText)"
            if origin.overrides(\.columnSpacing) && !origin.overrides(\.columns) {
                throw origin.error("columnSpacing", \.columnSpacing, message)
            }
            throw origin.error("columns", \.columns, message)
        }
        if isPlaceable(grid.columnWidth - 2 * padding) { return }
        guard isPlaceable(inner - 2 * padding) else {
            // Not even a single column is wider than its padding: no column count helps.
            let what = insets.left + insets.right > 0 ? "the width inside the sectionInsets" : "the content width"
            throw origin.error("cellPadding", \.cellPadding, "2 × cellPadding (\((2 * padding).messageText)) exceeds \(what) (\(inner.messageText))")
        }
        let message = "\(p.columns) columns are \(grid.columnWidth.messageText) wide, "
            + "narrower than 2 × cellPadding (\((2 * padding).messageText))"
        if origin.overrides(\.cellPadding) && !origin.overrides(\.columns) {
            throw origin.error("cellPadding", \.cellPadding, message)
        }
        throw origin.error("columns", \.columns, message)
    }
}

enum ColumnFlowGeometry {
    /// `avail = bounds.width - margins.left - margins.right`, and with it `cellWidth = floor(avail / cols)`,
    /// must not be negative. columnFlow ignores contentInsets.
    static func check(_ origin: ParameterOrigin<ColumnFlowParameters>, boundsWidth B: Double) throws(LayoutError) {
        let p = origin.parameters
        let avail = B - p.margins.left - p.margins.right
        // cols >= 1, so cellWidth >= 0 follows from avail >= 0; the grid's own value is checked all the same.
        guard isPlaceable(avail), isPlaceable(ColumnFlowGrid(parameters: p, boundsWidth: B, top: 0).cellWidth) else {
            throw origin.error(
                "margins", \.margins,
                insetsMessage("margins", p.margins, exceed: B, "bounds.width") + " (columnFlow ignores contentInsets)"
            )
        }
    }
}

/// The mosaic rule (named apart from `MosaicGeometry`, the frames it guards).
enum MosaicGeometryRules {
    /// Every `dividedIntegral` cut the section's segments make must leave a remainder of at least 0:
    /// `size - ceil(size * fraction) - spacing >= 0`, across W for the splits of the styles present and
    /// across segmentHeight for the stacked pairs. fullWidth cuts nothing, so a section of one or two items
    /// (or none) accepts any width.
    static func check(
        _ origin: ParameterOrigin<MosaicParameters>, contentWidth W: Double, itemCount: Int, widthPath: String
    ) throws(LayoutError) {
        let p = origin.parameters
        let geometry = MosaicGeometry(itemCount: itemCount, width: W, parameters: p, top: 0)
        for style in stylesPresent(geometry.pattern) {
            switch style {
            case .fullWidth:
                break
            case .fiftyFifty:
                try checkWidthCut(geometry.halves, "fiftyFifty", remainder: "W - ceil(W/2) - spacing", origin, W, widthPath)
            case .twoThirdsOneThird:
                try checkWidthCut(geometry.twoThirds, "twoThirdsOneThird", remainder: "W - ceil(2W/3) - spacing", origin, W, widthPath)
                try checkStack(geometry.stack, origin)
            case .oneThirdTwoThirds:
                try checkWidthCut(geometry.oneThird, "oneThirdTwoThirds", remainder: "W - ceil(W/3) - spacing", origin, W, widthPath)
                try checkStack(geometry.stack, origin)
            }
        }
    }

    /// The styles of the section's segments, in order of first appearance.
    ///
    /// Segments 0…3 show every style a section has: segment 0 is fullWidth, 1…3 are the first of each
    /// style of the cycle, and a style is replaced (by fullWidth or fiftyFifty, already seen by then) only
    /// in the last segment, so a later segment never brings a new one.
    private static func stylesPresent(_ pattern: MosaicSegmentPattern) -> [MosaicSegmentStyle] {
        var styles: [MosaicSegmentStyle] = []
        for segment in 0..<Swift.min(4, pattern.segmentCount) {
            let style = pattern.style(ofSegment: segment)
            if !styles.contains(style) { styles.append(style) }
        }
        return styles
    }

    private static func checkWidthCut(
        _ cut: MosaicCut, _ style: String, remainder: String,
        _ origin: ParameterOrigin<MosaicParameters>, _ W: Double, _ widthPath: String
    ) throws(LayoutError) {
        if isPlaceable(cut.second) { return }
        let spacing = origin.parameters.spacing
        let message = "the content width (\(W.messageText)) is too narrow for a \(style) segment with spacing \(spacing.messageText): "
            + "its second part would be \(remainder) = \(cut.second.messageText) wide"
        // With no spacing only a width under 1 point fails (ceil rounds the first part past it).
        if spacing > 0 { throw origin.error("spacing", \.spacing, message) }
        throw LayoutError(.invalidRequest, message, path: widthPath)
    }

    private static func checkStack(_ cut: MosaicCut, _ origin: ParameterOrigin<MosaicParameters>) throws(LayoutError) {
        if isPlaceable(cut.second) { return }
        let p = origin.parameters
        let message = "segmentHeight (\(p.segmentHeight.messageText)) is too short for a stacked pair with spacing \(p.spacing.messageText): "
            + "the lower rect would be segmentHeight - ceil(segmentHeight/2) - spacing = \(cut.second.messageText) tall"
        if origin.overrides(\.spacing) && !origin.overrides(\.segmentHeight) {
            throw origin.error("spacing", \.spacing, message)
        }
        throw origin.error("segmentHeight", \.segmentHeight, message)
    }
}

extension Double {
    /// A number as a message shows it: whole numbers without ".0".
    var messageText: String {
        if isFinite, rounded() == self, Swift.abs(self) < 1e15 { return String(Int64(self)) }
        return "\(self)"
    }
}
