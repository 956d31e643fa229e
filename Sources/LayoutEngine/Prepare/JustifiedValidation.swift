extension JustifiedParameters {
    /// Rejects values flickr's options do not allow, or that would make its arithmetic divide by zero
    /// (`targetRowHeight` 0) or never end a row; `path` is where the parameters sit.
    func validate(path: String) throws(LayoutError) {
        typealias V = LayoutInput
        try V.requirePositive(targetRowHeight, "\(path).targetRowHeight")
        guard targetRowHeightTolerance >= 0 && targetRowHeightTolerance <= 1 else {
            throw LayoutError(
                .invalidRequest, "must be a number from 0 to 1, not \(targetRowHeightTolerance)", path: "\(path).targetRowHeightTolerance"
            )
        }
        try V.requireNonNegative(boxSpacing.horizontal, "\(path).boxSpacing.horizontal")
        try V.requireNonNegative(boxSpacing.vertical, "\(path).boxSpacing.vertical")
        if let rows = maxNumRows, rows < 1 {
            throw LayoutError(.invalidRequest, "must be at least 1 (or null for no limit), not \(rows)", path: "\(path).maxNumRows")
        }
        if let ratio = forceAspectRatio, !V.aspectRatioRange.contains(ratio) {
            let range = V.aspectRatioRange
            throw LayoutError(
                .invalidRequest, "must be false or a number from \(range.lowerBound) to \(range.upperBound), not \(ratio)",
                path: "\(path).forceAspectRatio"
            )
        }
        if let cadence = fullWidthBreakoutRowCadence, cadence < 1 {
            throw LayoutError(.invalidRequest, "must be false or at least 1, not \(cadence)", path: "\(path).fullWidthBreakoutRowCadence")
        }
        try V.validate(sectionInsets, "\(path).sectionInsets")
    }
}

enum JustifiedGeometry {
    /// Rows are `W - inset.left - inset.right` wide (flickr's `containerWidth - containerPadding.left -
    /// containerPadding.right`); below 0 every item would get a negative width. 0 is accepted: items
    /// then get width 0 (see `JustifiedRows.placeCompletedRow`).
    static func check(_ origin: ParameterOrigin<JustifiedParameters>, contentWidth W: Double) throws(LayoutError) {
        let insets = origin.parameters.sectionInsets
        guard isPlaceable(W - insets.left - insets.right) else {
            throw origin.error("sectionInsets", \.sectionInsets, insetsMessage("sectionInsets", insets, exceed: W, "the content width"))
        }
    }
}
