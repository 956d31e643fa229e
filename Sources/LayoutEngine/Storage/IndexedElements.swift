/// A layout's elements in layout order, as the rect index sees them: per section header, cells, footer,
/// background, each moved down by its section's top.
struct IndexedElements {
    let sectionFrames: [SectionFrames]
    let tops: [Double]
    /// First element ordinal of each section, plus the total at the end.
    let ordinalStarts: [Int]
    /// The width of the background decorations; nil when sections have none.
    let background: Double?

    var count: Int { ordinalStarts[ordinalStarts.count - 1] }

    /// The index over every element. The first `unchangedLeaves` leaves, and every upper box over them
    /// alone, are copied from `previous` (whose elements must match these up to the end of those leaves);
    /// the rest are computed.
    func buildIndex(reusing previous: RectIndex?, unchangedLeaves: Int) -> RectIndex {
        if count <= RectIndex.scanLimit { return RectIndex(unindexed: count) }
        let leafCount = (count + RectIndex.leafSize - 1) / RectIndex.leafSize
        let kept = previous.map { Swift.min(unchangedLeaves, leafCount, $0.leafCount) } ?? 0
        // Room for the upper levels too: the index adds them in place.
        let leaves = [RectIndex.Box](unsafeUninitializedCapacity: RectIndex.boxCount(forLeafCount: leafCount)) { buffer, initialized in
            HugePages.advise(buffer)
            if let previous, kept > 0 {
                previous.boxes.withUnsafeBufferPointer { old in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[..<kept]).initialize(fromContentsOf: old[..<kept])
                }
            }
            var leaves = RectIndex.Leaves(into: buffer, startingAtLeaf: kept)
            addElements(from: kept * RectIndex.leafSize, to: &leaves)
            initialized = leaves.finish()
        }
        return RectIndex(leaves: leaves, elementCount: count, reusing: previous, unchangedLeaves: kept)
    }

    /// Adds every element from ordinal `first` on.
    private func addElements(from first: Int, to leaves: inout RectIndex.Leaves) {
        guard first < count else { return }
        var section = ordinalStarts.section(holdingOrdinal: first)
        // Elements of `section` already added (or kept) before `first`.
        var skip = first - ordinalStarts[section]
        while section < sectionFrames.count {
            let frames = sectionFrames[section]
            let top = tops[section]
            if let header = frames.header {
                if skip == 0 { leaves.add(header, dy: top) } else { skip -= 1 }
            }
            let cells = frames.cells.count
            leaves.addCells(frames.cells, from: Swift.min(skip, cells), top: top)
            skip -= Swift.min(skip, cells)
            if let footer = frames.footer {
                if skip == 0 { leaves.add(footer, dy: top) } else { skip -= 1 }
            }
            if let width = background {
                if skip == 0 { leaves.add(Rect(x: 0, y: 0, width: width, height: frames.height), dy: top) } else { skip -= 1 }
            }
            section += 1
        }
    }

}
