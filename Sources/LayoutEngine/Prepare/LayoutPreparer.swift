extension PreparedLayout {
    /// Validates `input` and computes every frame.
    ///
    /// Sections run in parallel, large sections by segment where the layout allows it; the result is
    /// bit-identical to `options.segments = .serial`.
    public static func prepare(_ input: LayoutInput, options: PrepareOptions = PrepareOptions()) throws(LayoutError) -> PreparedLayout {
        try input.validate(limits: options.limits)
        var segments = options.segments
        if input.itemCount < options.parallelThreshold { segments.isParallel = false }
        let frames = layOutSections(of: input, indices: Array(input.sections.indices), segments: segments)
        return PreparedLayout(input: input, sectionFrames: frames, backgroundWidth: backgroundWidth(of: input))
    }

    /// The section-local frames of the given sections of `input` (which must already be valid).
    static func layOutSections(of input: LayoutInput, indices: [Int], segments: Segments) -> [SectionFrames] {
        let results = ResultSlots<SectionFrames>(count: indices.count)
        segments.forEach(indices.count) { slot in
            results[slot] = layOutSection(indices[slot], of: input, segments: segments)
        }
        return results.collect()
    }

    static func backgroundWidth(of input: LayoutInput) -> Double {
        input.parameters.kind == .columnFlow ? input.bounds.width : input.contentWidth
    }

    static func layOutSection(_ index: Int, of input: LayoutInput, segments: Segments) -> SectionFrames {
        let section = input.sections[index]
        let context = SectionContext(
            boundsWidth: input.bounds.width,
            contentWidth: input.contentWidth,
            headerHeight: input.headerHeight(forSection: index),
            footerHeight: input.footerHeight(forSection: index),
            segments: segments
        )
        switch input.parameters(forSection: index) {
        case .columnFlow(let p): return ColumnFlowLayout.layOut(section, parameters: p, context: context)
        case .mosaic(let p): return MosaicLayout.layOut(section, parameters: p, context: context)
        case .waterfall(let p): return WaterfallLayout.layOut(section, parameters: p, context: context)
        case .list(let p): return ListLayout.layOut(section, parameters: p, context: context)
        case .columns(let p): return ColumnsLayout.layOut(section, parameters: p, context: context)
        case .flow(let p): return FlowLayout.layOut(section, parameters: p, context: context)
        case .justified(let p): return JustifiedLayout.layOut(section, parameters: p, context: context)
        }
    }
}

/// One slot per concurrent task, each written by exactly one task.
///
/// `@unchecked Sendable` because `concurrentPerform` hands it to several threads, each writing a
/// distinct index, and `collect()` runs only after all of them have returned. Raw memory rather than
/// an array property: concurrent writes to a class's array would trip Swift's exclusivity checks.
final class ResultSlots<Value>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    subscript(index: Int) -> Value? {
        get { slots[index] }
        set { slots[index] = newValue }
    }

    /// Every value, in slot order. Each slot must have been written.
    func collect() -> [Value] {
        slots.compactMap { $0 }
    }
}
