extension PreparedLayout {
    /// Validates `input` and computes every frame.
    ///
    /// Sections run in parallel, large sections by segment where the layout allows it; the result is
    /// bit-identical to `options.segments = .serial`.
    public static func prepare(_ input: LayoutInput, options: PrepareOptions = PrepareOptions()) throws(LayoutError) -> PreparedLayout {
        try input.validate(limits: options.limits)
        var segments = options.segments
        if input.itemCount < options.parallelThreshold { segments.isParallel = false }
        var frames = layOutSections(of: input, indices: Array(input.sections.indices), segments: segments)
        settleRoundingTops(of: &frames, in: input, segments: segments)
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
        input.mirrorWidth
    }

    /// Lays out again, in order, every section whose frames were rounded against another top than the one
    /// it lands at (see `SectionContext.top`); returns the indices it laid out again.
    ///
    /// Sections are laid out in parallel before their tops are known, each assuming a guess (0, or its
    /// top before a batch); only a section that rounds against its top and guessed wrong costs a second
    /// pass. It runs in order because such a section's height (its rounded maxY) moves the ones after it.
    @discardableResult
    static func settleRoundingTops(of frames: inout [SectionFrames], in input: LayoutInput, segments: Segments) -> [Int] {
        var settled: [Int] = []
        var top = 0.0
        for index in frames.indices {
            if let guess = frames[index].roundingTop, guess != top {
                frames[index] = layOutSection(index, of: input, segments: segments, top: top)
                settled.append(index)
            }
            top += frames[index].height
        }
        return settled
    }

    /// Section `index` of `input`, in the input's direction: laid out left to right, then mirrored for
    /// right to left (LAYOUTS.md, Layout direction). Mirroring the finished section, rather than as
    /// frames are written, keeps every layout left-to-right only: one that reads back what it wrote
    /// (flow's `center`) reads its own values, and left to right pays nothing.
    static func layOutSection(_ index: Int, of input: LayoutInput, segments: Segments, top: Double = 0) -> SectionFrames {
        var frames = layOutSectionLeftToRight(index, of: input, segments: segments, top: top)
        if input.layoutDirection == .rightToLeft {
            frames.mirror(inWidth: input.mirrorWidth, fromCell: 0, segments: segments)
        }
        return frames
    }

    static func layOutSectionLeftToRight(_ index: Int, of input: LayoutInput, segments: Segments, top: Double) -> SectionFrames {
        let section = input.sections[index]
        let context = SectionContext(section: index, of: input, segments: segments, top: top)
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
