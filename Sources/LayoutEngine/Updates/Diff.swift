/// Computes the batch that turns one list of sections into another, by item identity (LAYOUTS.md, diff).
///
/// - Sections are matched by position. Sections beyond the old count are `insertSection`s, old sections
///   beyond the new count are `deleteSection`s; a matched section whose header, footer or parameters
///   changed is a `reloadSection` (its items cannot then be updated one by one).
/// - Items are matched by id inside their section (Heckel's symbol table, one table over the new ids). An id
///   that changes section is a delete plus an insert. Unmatched old items are deleted, unmatched new
///   ones inserted.
/// - Matched items on one longest increasing subsequence of old positions stay; each other one is one
///   move, which is the fewest moves possible (a rotation by one is one move; a swap of
///   neighbours is one move, of two distant items two).
/// - A matched item whose sizing changed is a reload where it stays; where it moves, a delete plus an
///   insert, because a batch may not both move and reload an item.
/// - Old items without ids match nothing; of old items sharing an id, only the first can match.
///
/// O(n) hashing plus O(k log k) for the k matched items of a section.
public enum Diff {
    /// The batch that, applied to `old`, gives `new` exactly (items, sizing and ids).
    ///
    /// - Throws: `invalid_request` at `sections[s].ids[i]` for an id that appears twice in a new section,
    ///   at `sections[s].ids` for a non-empty new section without ids (or with a wrong number of them).
    public static func batch(from old: [Section], to new: [Section]) throws(LayoutError) -> BatchUpdate {
        let hasher = IdentityHasher()
        // Every new section is checked before anything is computed; the indexes of the sections matched
        // item by item are kept for that.
        var matching: [SectionMatching] = []
        matching.reserveCapacity(new.count)
        for (s, section) in new.enumerated() {
            let index = try usableIndex(of: section, at: s, hasher: hasher)
            matching.append(s < old.count && hasSameFrame(old[s], section) ? .byItem(index) : .whole)
        }
        var operations: [BatchUpdate.Operation] = []
        for s in (new.count..<Swift.max(old.count, new.count)).reversed() {
            operations.append(.deleteSection(s))
        }
        for s in old.count..<Swift.max(old.count, new.count) {
            operations.append(.insertSection(s, new[s]))
        }
        for s in 0..<Swift.min(old.count, new.count) {
            switch matching[s] {
            case .byItem(let index):
                appendItemOperations(from: old[s], to: new[s], index: index, hasher: hasher, section: s, into: &operations)
            case .whole:
                operations.append(.reloadSection(s, new[s]))
            }
        }
        return BatchUpdate(operations)
    }

    /// How a new section is reached from the old one at its index.
    private enum SectionMatching {
        /// Item by item; the index of the new section's ids (nil when it is empty).
        case byItem(IdentityIndex?)
        /// Inserted or reloaded whole.
        case whole
    }

    /// The section's ids, indexed (nil for an empty section); throws when they cannot identify its items.
    private static func usableIndex(of section: Section, at s: Int, hasher: IdentityHasher) throws(LayoutError) -> IdentityIndex? {
        guard !section.items.isEmpty else { return nil }
        guard let ids = section.ids else {
            throw LayoutError(.invalidRequest, "diff matches items by id; section \(s) has none", path: "sections[\(s)].ids")
        }
        guard ids.count == section.items.count else {
            throw LayoutError(.invalidRequest, "\(ids.count) ids for \(section.items.count) items", path: "sections[\(s)].ids")
        }
        do throws(IdentityIndex.Duplicate) {
            return try IdentityIndex(ids, hash: hasher.hash)
        } catch {
            throw LayoutError(
                .invalidRequest, "id \(ids[error.position]) appears twice in section \(s) (also at \(error.earlier))",
                path: "sections[\(s)].ids[\(error.position)]"
            )
        }
    }

    /// Everything of a section but its items.
    private static func hasSameFrame(_ a: Section, _ b: Section) -> Bool {
        a.headerHeight.isIdentical(to: b.headerHeight) && a.footerHeight.isIdentical(to: b.footerHeight) && a.parameters == b.parameters
    }

    /// `index` indexes `new`'s ids; nil when `new` is empty.
    private static func appendItemOperations(
        from old: Section, to new: Section, index: IdentityIndex?, hasher: IdentityHasher, section s: Int,
        into operations: inout [BatchUpdate.Operation]
    ) {
        let oldCount = old.items.count
        let newCount = new.items.count
        let newIds = new.ids ?? []
        // For each new item, its old position when matched (-1: none); the first old item of an id wins.
        // 32-bit positions: at 10^6 items every array here is touched once, and memory is the cost.
        var matchedOld = [Int32](repeating: -1, count: newCount)
        var isMatched = [Bool](repeating: false, count: oldCount)
        var matchedCount = 0
        if let index, let oldIds = old.ids, oldIds.count == oldCount {
            // Most items keep their order, so the old item after a match is most often the new item after
            // it, or the one after that (one insert between): two sequential compares instead of a hash
            // and a probe that misses the cache. Exact either way: each id has one new position.
            var next = 0
            for i in 0..<oldCount {
                let id = oldIds[i]
                let j: Int
                if next < newCount, newIds[next] == id {
                    j = next
                } else if next + 1 < newCount, newIds[next + 1] == id {
                    j = next + 1
                } else if let found = index.position(of: id, hash: hasher.hash(id)) {
                    j = found
                } else {
                    continue
                }
                guard matchedOld[j] < 0 else { continue }
                matchedOld[j] = Int32(truncatingIfNeeded: i)
                isMatched[i] = true
                matchedCount += 1
                next = j + 1
            }
        }
        var matchedSequence: [Int32] = []
        matchedSequence.reserveCapacity(matchedCount)
        for i in matchedOld where i >= 0 {
            matchedSequence.append(i)
        }
        let stays = longestIncreasingSubsequence(matchedSequence)
        let moving = stays.reduce(matchedCount) { $1 ? $0 - 1 : $0 }
        // Reloads may still grow it; deletes, inserts and moves (two for a changed one) fit.
        operations.reserveCapacity(operations.count + (oldCount - matchedCount) + (newCount - matchedCount) + 2 * moving)

        for i in (0..<oldCount).reversed() where !isMatched[i] {
            operations.append(.delete(ItemPath(section: s, item: i)))
        }
        let sizing = SizingComparison(old.items, new.items)
        var k = 0
        for j in 0..<newCount {
            let to = ItemPath(section: s, item: j)
            let i = Int(matchedOld[j])
            guard i >= 0 else {
                operations.append(.insert(to, new.items[j], id: newIds[j]))
                continue
            }
            let from = ItemPath(section: s, item: i)
            switch (stays[k], sizing.isIdentical(old: i, new: j)) {
            case (true, true): break
            case (true, false): operations.append(.reload(from, new.items[j], id: nil))
            case (false, true): operations.append(.move(from: from, to: to))
            case (false, false):
                operations.append(.delete(from))
                operations.append(.insert(to, new.items[j], id: newIds[j]))
            }
            k += 1
        }
    }
}

/// Whether a matched item asks for the same sizing before and after, down to the bit (so that a diff
/// never drops a change a frame could show: 0 and -0 differ). Read from the columns directly, skipping
/// the columns neither side has: a diff compares every matched item.
private struct SizingComparison {
    let old: ItemSizes
    let new: ItemSizes
    let heights: Bool
    let aspectRatios: Bool
    let widths: Bool
    let spans: Bool

    init(_ old: ItemSizes, _ new: ItemSizes) {
        self.old = old
        self.new = new
        heights = !old.heights.isEmpty || !new.heights.isEmpty
        aspectRatios = !old.aspectRatios.isEmpty || !new.aspectRatios.isEmpty
        widths = !old.widths.isEmpty || !new.widths.isEmpty
        spans = !old.spans.isEmpty || !new.spans.isEmpty
    }

    @inline(__always)
    func isIdentical(old i: Int, new j: Int) -> Bool {
        (!heights || Self.sameBits(old.heights, i, new.heights, j))
            && (!aspectRatios || Self.sameBits(old.aspectRatios, i, new.aspectRatios, j))
            && (!widths || Self.sameBits(old.widths, i, new.widths, j))
            && (!spans || old.isSpan(at: i) == new.isSpan(at: j))
    }

    /// Equal values bit for bit, "not set" (an empty column or NaN) equal only to itself.
    @inline(__always)
    private static func sameBits(_ a: [Double], _ i: Int, _ b: [Double], _ j: Int) -> Bool {
        let x = a.isEmpty ? Double.nan : a[i]
        let y = b.isEmpty ? Double.nan : b[j]
        if x.isNaN || y.isNaN { return x.isNaN && y.isNaN }
        return x.bitPattern == y.bitPattern
    }
}

extension Optional where Wrapped == Double {
    func isIdentical(to other: Double?) -> Bool {
        switch (self, other) {
        case (nil, nil): return true
        case let (a?, b?): return a.bitPattern == b.bitPattern
        default: return false
        }
    }
}
