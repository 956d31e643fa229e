/// What a batch does to the items of one section that continues an old one.
///
/// Applying it is the documented order — moves as delete + insert, deletes in descending order, then
/// inserts in ascending order, reloads replacing the sizing — done as one linear merge: the surviving old
/// items keep their order and fill every after-index no insert claims. That is the same result, built in
/// O(items) column copies instead of one O(items) shift per update.
struct SectionEdit: Sendable {
    /// Where an arriving item comes from.
    enum Arrival: Sendable {
        case new(ItemSizing, id: ItemID?)
        /// A moved item, by its before-index path (possibly in another section).
        case moved(ItemPath)
    }

    struct Insertion: Sendable {
        /// The after-index.
        var item: Int
        var arrival: Arrival
    }

    struct Reload: Sendable {
        /// The before-index.
        var item: Int
        var sizing: ItemSizing
        /// Nil keeps the item's id.
        var id: ItemID?
    }

    /// Before-indices of deleted and moved-away items.
    var removed: [Int] = []
    var reloads: [Reload] = []
    var insertions: [Insertion] = []
    /// Whether the section's items have ids after the batch.
    var keepsIds = false

    var isEmpty: Bool { removed.isEmpty && reloads.isEmpty && insertions.isEmpty }

    /// Puts every list in index order; the merge relies on it.
    mutating func sort() {
        removed.sort()
        reloads.sort { $0.item < $1.item }
        insertions.sort { $0.item < $1.item }
    }

    /// Items before this index are the same, in the same order, before and after the batch: no delete,
    /// move or reload below it before, no insert below it after.
    var firstAffectedItem: Int {
        [removed.first, reloads.first?.item, insertions.first?.item].compactMap { $0 }.min() ?? 0
    }

    // MARK: Applying

    /// A stretch of the section after the batch.
    private enum Piece {
        /// Old items, unchanged.
        case run(Range<Int>)
        /// An index into `reloads`.
        case reload(Int)
        /// An index into `insertions`.
        case insertion(Int)
    }

    /// The section after the batch; `sections` are all sections before it (moved items are read there).
    func applied(to section: Section, sections: [Section]) -> Section {
        let oldCount = section.items.count
        let newCount = oldCount - removed.count + insertions.count
        let pieces = self.pieces(oldCount: oldCount, newCount: newCount)
        let arriving = insertions.map { insertion -> (sizing: ItemSizing, id: ItemID?) in
            switch insertion.arrival {
            case let .new(sizing, id):
                return (sizing, id)
            case .moved(let from):
                let source = sections[from.section]
                return (source.items[from.item], source.ids?[from.item])
            }
        }
        var result = section
        result.items = items(of: section.items, pieces: pieces, arriving: arriving.map(\.sizing), count: newCount)
        result.ids = keepsIds ? ids(of: section.ids, pieces: pieces, arriving: arriving.map(\.id), count: newCount) : nil
        return result
    }

    private func pieces(oldCount: Int, newCount: Int) -> [Piece] {
        var pieces: [Piece] = []
        var old = 0
        var new = 0
        var nextRemoved = 0
        var nextReload = 0
        var nextInsertion = 0
        while new < newCount {
            if nextInsertion < insertions.count, insertions[nextInsertion].item == new {
                pieces.append(.insertion(nextInsertion))
                nextInsertion += 1
                new += 1
                continue
            }
            while nextRemoved < removed.count, removed[nextRemoved] == old {
                nextRemoved += 1
                old += 1
            }
            // Unreachable for a validated batch: the counts add up.
            guard old < oldCount else { break }
            if nextReload < reloads.count, reloads[nextReload].item == old {
                pieces.append(.reload(nextReload))
                nextReload += 1
                old += 1
                new += 1
                continue
            }
            var end = oldCount
            if nextRemoved < removed.count { end = Swift.min(end, removed[nextRemoved]) }
            if nextReload < reloads.count { end = Swift.min(end, reloads[nextReload].item) }
            let insertionAt = nextInsertion < insertions.count ? insertions[nextInsertion].item : newCount
            end = Swift.min(end, old + insertionAt - new)
            pieces.append(.run(old..<end))
            new += end - old
            old = end
        }
        return pieces
    }

    private func items(of old: ItemSizes, pieces: [Piece], arriving: [ItemSizing], count: Int) -> ItemSizes {
        let changed = reloads.map(\.sizing) + arriving
        func column(_ oldColumn: [Double], _ field: (ItemSizing) -> Double?) -> [Double] {
            guard !oldColumn.isEmpty || changed.contains(where: { field($0) != nil }) else { return [] }
            return Self.assembled(
                oldColumn, absent: .nan, count: count, pieces: pieces,
                reloaded: { field(reloads[$0].sizing) ?? .nan }, inserted: { field(arriving[$0]) ?? .nan }
            )
        }
        let spans = !old.spans.isEmpty || changed.contains(where: \.isSpan)
            ? Self.assembled(old.spans, absent: false, count: count, pieces: pieces, reloaded: { reloads[$0].sizing.isSpan }, inserted: { arriving[$0].isSpan })
            : []
        let built = ItemSizes(
            count: count,
            heights: column(old.heights, \.height),
            aspectRatios: column(old.aspectRatios, \.aspectRatio),
            widths: column(old.widths, \.width),
            spans: spans
        )
        // Only a merge that lost track of the counts could disagree; rebuild item by item then.
        return built ?? ItemSizes(columnsOf: pieces.flatMap { piece -> [ItemSizing] in
            switch piece {
            case .run(let range): return range.map { old[$0] }
            case .reload(let r): return [reloads[r].sizing]
            case .insertion(let i): return [arriving[i]]
            }
        })
    }

    /// Nil when an item would have no id (which validation rules out).
    private func ids(of old: [ItemID]?, pieces: [Piece], arriving: [ItemID?], count: Int) -> [ItemID]? {
        guard pieces.allSatisfy({ piece in
            switch piece {
            case .run: return old != nil
            case .reload(let r): return reloads[r].id != nil || old != nil
            case .insertion(let i): return arriving[i] != nil
            }
        }) else { return nil }
        let ids = Self.assembled(
            old ?? [], absent: .integer(0), count: count, pieces: pieces,
            reloaded: { r in reloads[r].id ?? old?[reloads[r].item] ?? .integer(0) }, inserted: { arriving[$0] ?? .integer(0) }
        )
        return ids.count == count ? ids : nil
    }

    /// One column after the batch, written once into a fresh buffer: runs copied from `old` (or `absent`
    /// where `old` is empty), then one value per reload and insertion.
    ///
    /// Why not `append(contentsOf:)`: at 10^6 items the new columns are megabytes of fresh memory, and
    /// faulting it in page by page costs more than the copy. The buffer takes huge pages, as frames do.
    /// Returns fewer than `count` elements (and so an `ItemSizes` that does not build) if the pieces do
    /// not add up, which a validated batch rules out.
    private static func assembled<Element>(
        _ old: [Element], absent: Element, count: Int, pieces: [Piece],
        reloaded: (Int) -> Element, inserted: (Int) -> Element
    ) -> [Element] {
        let total = pieces.reduce(0) { total, piece in
            if case .run(let range) = piece { return total + range.count }
            return total + 1
        }
        guard total == count else { return [] }
        return old.withUnsafeBufferPointer { old in
            [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                HugePages.advise(buffer)
                var at = 0
                for piece in pieces {
                    switch piece {
                    case .run(let range):
                        let target = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + range.count)])
                        if old.isEmpty {
                            target.initialize(repeating: absent)
                        } else {
                            _ = target.initialize(fromContentsOf: old[range])
                        }
                        at += range.count
                    case .reload(let r):
                        buffer.initializeElement(at: at, to: reloaded(r))
                        at += 1
                    case .insertion(let i):
                        buffer.initializeElement(at: at, to: inserted(i))
                        at += 1
                    }
                }
                initialized = at
            }
        }
    }
}
