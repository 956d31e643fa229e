extension PreparedLayout {
    /// Turns the layout's sections into `sections` by identity (`Diff.batch`) and applies that batch.
    ///
    /// `sections` are validated as `prepare` would validate them (errors at `sections[s]…`), so a bad
    /// request never reaches the batch.
    ///
    /// - Returns: the new layout, the batch as computed and the batch in normalized form.
    public func applyingDiff(to sections: [Section], options: PrepareOptions = PrepareOptions()) throws(LayoutError) -> (layout: PreparedLayout, update: BatchUpdate, batch: NormalizedBatch) {
        var newInput = input
        newInput.sections = sections
        try newInput.validate(limits: options.limits)
        let update = try Diff.batch(from: input.sections, to: sections)
        let applied = try applying(update, options: options)
        return (applied.layout, update, applied.batch)
    }
}
