extension PreparedLayout {
    /// Bytes held by the frames alone.
    public var frameBytes: Int {
        sectionFrames.reduce(0) { $0 + $1.cells.byteCount + 3 * MemoryLayout<Rect?>.stride }
    }

    /// Bytes the layout takes on the heap: frames, index, per-section bookkeeping and its input, each
    /// allocation as malloc takes it (`HeapBytes`). What a memory bound counts.
    public var byteCount: Int {
        var total = HeapBytes.block(PreparedLayoutParts.instanceBytes) + HeapBytes.array(sectionFrames)
            + HeapBytes.array(ordinalStarts) + index.byteCount + inputByteCount
        if sectionTops.count != 1 { total += HeapBytes.array(sectionTops) }
        for frames in sectionFrames {
            total += frames.cells.heapBytes + frames.checkpoints.heapBytes
        }
        return total
    }

    private var inputByteCount: Int {
        input.sections.reduce(HeapBytes.array(input.sections)) { total, section in
            let items = section.items
            var bytes = HeapBytes.array(items.heights) + HeapBytes.array(items.aspectRatios) + HeapBytes.array(items.widths)
                + HeapBytes.array(items.spans)
            if let ids = section.ids {
                bytes += HeapBytes.array(ids)
                for case .string(let id) in ids { bytes += HeapBytes.string(id) }
            }
            return total + bytes
        }
    }
}

extension FrameColumns {
    /// The heap the four columns take.
    var heapBytes: Int {
        HeapBytes.array(xs) + HeapBytes.array(ys) + HeapBytes.array(widths) + HeapBytes.array(heights)
    }
}

extension SectionCheckpoints {
    var heapBytes: Int { HeapBytes.array(items) + HeapBytes.array(values) }
}
