extension LayoutInput {
    /// Rejects what no layout can place: negative, NaN or infinite sizes and parameters, zero columns,
    /// a non-positive aspect ratio, counts over `limits`, and parameters that at this width would give a
    /// negative or non-finite size (insets wider than the content, too many columns, …). Never clamps
    /// silently (except `columnCount`, which the framework clamps to 1).
    public func validate(limits: InputLimits = InputLimits()) throws(LayoutError) {
        try Self.requireNonNegative(bounds.width, "bounds.width")
        try Self.requireNonNegative(bounds.height, "bounds.height")
        try Self.validate(contentInsets, "contentInsets")
        // columnFlow works on bounds.width alone; every other layout lays out in W.
        guard contentWidth >= 0 || parameters.kind == .columnFlow else {
            throw LayoutError(
                .invalidRequest,
                "contentInsets.left + right (\(contentInsets.horizontal.messageText)) exceed bounds.width (\(bounds.width.messageText))",
                path: "contentInsets"
            )
        }
        try parameters.validate(path: "spec")
        guard sections.count <= limits.maxSections else {
            throw LayoutError(.tooLarge, "\(sections.count) sections is over the limit of \(limits.maxSections)", path: "sections")
        }
        var total = 0
        for (s, section) in sections.enumerated() {
            let path = "sections[\(s)]"
            guard section.items.count >= 0 else {
                throw LayoutError(.invalidRequest, "item count must not be negative", path: "\(path).count")
            }
            total += section.items.count
            guard total <= limits.maxItems else {
                throw LayoutError(.tooLarge, "more than \(limits.maxItems) items in all", path: "\(path).count")
            }
            if let header = section.headerHeight { try Self.requireNonNegative(header, "\(path).header") }
            if let footer = section.footerHeight { try Self.requireNonNegative(footer, "\(path).footer") }
            if let overrides = section.parameters {
                guard overrides.kind == parameters.kind else {
                    throw LayoutError(.invalidRequest, "section parameters are for \(overrides.kind.rawValue), the spec is \(parameters.kind.rawValue)", path: "\(path).params")
                }
                try overrides.validate(path: "\(path).params")
            }
            if let ids = section.ids, ids.count != section.items.count {
                throw LayoutError(.invalidRequest, "\(ids.count) ids for \(section.items.count) items", path: "\(path).ids")
            }
            try Self.validate(section.items, path: path)
            try validateGeometry(ofSection: s)
        }
    }

    private static func validate(_ items: ItemSizes, path: String) throws(LayoutError) {
        // NaN inside a column means "not set"; only finite negative or infinite values are errors here.
        // Each column is first checked by its extremes alone, a loop of min/max that costs about as much
        // as reading it; only a column that fails is searched again for the first bad item to report.
        if let (least, greatest) = extremes(of: items.heights), least < 0 || greatest > maxLength {
            for (i, h) in items.heights.enumerated() where !h.isNaN && !isLength(h) {
                throw LayoutError(.invalidRequest, "height must be a number from 0 to \(maxLength), not \(h)", path: "\(path).items[\(i)].height")
            }
        }
        if let (least, greatest) = extremes(of: items.aspectRatios), least < aspectRatioRange.lowerBound || greatest > aspectRatioRange.upperBound {
            for (i, r) in items.aspectRatios.enumerated() where !r.isNaN && !aspectRatioRange.contains(r) {
                throw LayoutError(.invalidRequest, "aspectRatio must be a number from \(aspectRatioRange.lowerBound) to \(aspectRatioRange.upperBound), not \(r)", path: "\(path).items[\(i)].aspectRatio")
            }
        }
        if let (least, greatest) = extremes(of: items.widths), least < 0 || greatest > maxLength {
            for (i, w) in items.widths.enumerated() where !w.isNaN && !isLength(w) {
                throw LayoutError(.invalidRequest, "width must be a number from 0 to \(maxLength), not \(w)", path: "\(path).items[\(i)].width")
            }
        }
    }

    /// The least and greatest values of `column` that are not NaN; nil when there are none.
    private static func extremes(of column: [Double]) -> (least: Double, greatest: Double)? {
        column.withUnsafeBufferPointer { values in
            // Two lanes each, so the compares of neighbouring items do not wait on one another. A NaN
            // compares false both ways and is skipped.
            var least = (Double.infinity, Double.infinity)
            var greatest = (-Double.infinity, -Double.infinity)
            var i = 0
            while i + 1 < values.count {
                let a = values[i]
                let b = values[i + 1]
                least.0 = a < least.0 ? a : least.0
                least.1 = b < least.1 ? b : least.1
                greatest.0 = a > greatest.0 ? a : greatest.0
                greatest.1 = b > greatest.1 ? b : greatest.1
                i += 2
            }
            if i < values.count {
                let a = values[i]
                least.0 = a < least.0 ? a : least.0
                greatest.0 = a > greatest.0 ? a : greatest.0
            }
            let low = Swift.min(least.0, least.1)
            let high = Swift.max(greatest.0, greatest.1)
            return low <= high ? (low, high) : nil
        }
    }

    /// The longest length accepted anywhere (sizes, spacings, insets, bounds), in points. With aspect
    /// ratios kept within `aspectRatioRange` and at most 10^7 items, no sum of them can overflow a Double,
    /// so every frame a layout computes is finite.
    public static let maxLength = 1e9
    /// Accepted aspect ratios (width / height).
    public static let aspectRatioRange = 1e-9...1e9

    @inline(__always)
    static func isLength(_ value: Double) -> Bool { value >= 0 && value <= maxLength }

    /// The path is made only for an error: callers interpolate it, and an update checks its items on
    /// every request.
    static func requireNonNegative(_ value: Double, _ path: @autoclosure () -> String) throws(LayoutError) {
        guard isLength(value) else {
            throw LayoutError(.invalidRequest, "must be a number from 0 to \(maxLength), not \(value)", path: path())
        }
    }

    static func requirePositive(_ value: Double, _ path: @autoclosure () -> String) throws(LayoutError) {
        guard value > 0, value <= maxLength else {
            throw LayoutError(.invalidRequest, "must be a number > 0 and at most \(maxLength), not \(value)", path: path())
        }
    }

    static func validate(_ insets: Insets, _ path: String) throws(LayoutError) {
        try requireNonNegative(insets.top, "\(path).top")
        try requireNonNegative(insets.left, "\(path).left")
        try requireNonNegative(insets.bottom, "\(path).bottom")
        try requireNonNegative(insets.right, "\(path).right")
    }
}

extension LayoutParameters {
    /// Rejects invalid parameter values; `path` is where the parameters sit (`spec`, `sections[1].params`).
    public func validate(path: String) throws(LayoutError) {
        typealias V = LayoutInput
        try V.requireNonNegative(headerHeight, "\(path).header")
        try V.requireNonNegative(footerHeight, "\(path).footer")
        switch self {
        case .columnFlow(let p):
            try V.requirePositive(p.minColumnWidth, "\(path).minColumnWidth")
            try V.requireNonNegative(p.cellHeight, "\(path).cellHeight")
            try V.validate(p.margins, "\(path).margins")
            try V.requireNonNegative(p.interitemSpacing, "\(path).interitemSpacing")
            try V.requireNonNegative(p.lineSpacing, "\(path).lineSpacing")
        case .mosaic(let p):
            try V.requireNonNegative(p.segmentHeight, "\(path).segmentHeight")
            try V.requireNonNegative(p.spacing, "\(path).spacing")
        case .waterfall(let p):
            guard p.columns >= 1 else {
                throw LayoutError(.invalidRequest, "columns must be at least 1, not \(p.columns)", path: "\(path).columns")
            }
            try V.requireNonNegative(p.cellPadding, "\(path).cellPadding")
            try V.requireNonNegative(p.itemHeight, "\(path).itemHeight")
            if let width = p.columnWidth { try V.requireNonNegative(width, "\(path).columnWidth") }
            try V.requireNonNegative(p.columnSpacing, "\(path).columnSpacing")
            try V.requireNonNegative(p.interitemSpacing, "\(path).interitemSpacing")
            try V.validate(p.sectionInsets, "\(path).sectionInsets")
        case .list(let p):
            try V.requireNonNegative(p.itemHeight, "\(path).itemHeight")
            try V.requireNonNegative(p.spacing, "\(path).spacing")
            try V.validate(p.sectionInsets, "\(path).sectionInsets")
        case .columns(let p):
            try V.requireNonNegative(p.columnSpacing, "\(path).columnSpacing")
            try V.requireNonNegative(p.interitemSpacing, "\(path).interitemSpacing")
            try V.requireNonNegative(p.itemHeight, "\(path).itemHeight")
            try V.validate(p.sectionInsets, "\(path).sectionInsets")
        case .flow(let p):
            try V.requireNonNegative(p.interitemSpacing, "\(path).interitemSpacing")
            if let v = p.interspanSpacing { try V.requireNonNegative(v, "\(path).interspanSpacing") }
            if let v = p.spanGroupSpacingBefore { try V.requireNonNegative(v, "\(path).spanGroupSpacingBefore") }
            if let v = p.spanGroupSpacingAfter { try V.requireNonNegative(v, "\(path).spanGroupSpacingAfter") }
            try V.requireNonNegative(p.defaultItemSize.width, "\(path).defaultItemSize.width")
            try V.requireNonNegative(p.defaultItemSize.height, "\(path).defaultItemSize.height")
            try V.validate(p.sectionInsets, "\(path).sectionInsets")
            try V.requireNonNegative(p.fillMaxScale, "\(path).fillMaxScale")
        case .justified(let p):
            try p.validate(path: path)
        }
    }
}
