/// Computes the batch that turns one list of sections into another, by item identity (LAYOUTS.md, diff).
///
/// - Sections are matched by position. Sections beyond the old count are `insertSection`s, old sections
///   beyond the new count are `deleteSection`s; a matched section whose header, footer or parameters
///   changed is a `reloadSection` (its items cannot then be updated one by one).
/// - Items are matched by id inside their section (Heckel's symbol table: one hash map per side). An id
///   that changes section is a delete plus an insert. Unmatched old items are deleted, unmatched new
///   ones inserted.
/// - Matched items on one longest increasing subsequence of old positions stay; each other one is one
///   move, which is the fewest moves possible (a swap is one move, a rotation by one is one move).
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
        for (s, section) in new.enumerated() { try requireUsableIds(section, at: s) }
        var operations: [BatchUpdate.Operation] = []
        for s in (new.count..<Swift.max(old.count, new.count)).reversed() {
            operations.append(.deleteSection(s))
        }
        for s in old.count..<Swift.max(old.count, new.count) {
            operations.append(.insertSection(s, new[s]))
        }
        for s in 0..<Swift.min(old.count, new.count) {
            if hasSameFrame(old[s], new[s]) {
                appendItemOperations(from: old[s], to: new[s], section: s, into: &operations)
            } else {
                operations.append(.reloadSection(s, new[s]))
            }
        }
        return BatchUpdate(operations)
    }

    private static func requireUsableIds(_ section: Section, at s: Int) throws(LayoutError) {
        guard !section.items.isEmpty else { return }
        guard let ids = section.ids else {
            throw LayoutError(.invalidRequest, "diff matches items by id; section \(s) has none", path: "sections[\(s)].ids")
        }
        guard ids.count == section.items.count else {
            throw LayoutError(.invalidRequest, "\(ids.count) ids for \(section.items.count) items", path: "sections[\(s)].ids")
        }
        var seen: [ItemID: Int] = [:]
        seen.reserveCapacity(ids.count)
        for (i, id) in ids.enumerated() {
            if let first = seen.updateValue(i, forKey: id) {
                throw LayoutError(.invalidRequest, "id \(id) appears twice in section \(s) (also at \(first))", path: "sections[\(s)].ids[\(i)]")
            }
        }
    }

    /// Everything of a section but its items.
    private static func hasSameFrame(_ a: Section, _ b: Section) -> Bool {
        a.headerHeight.isIdentical(to: b.headerHeight) && a.footerHeight.isIdentical(to: b.footerHeight) && a.parameters == b.parameters
    }

    private static func appendItemOperations(from old: Section, to new: Section, section s: Int, into operations: inout [BatchUpdate.Operation]) {
        let newIds = new.ids ?? []
        var oldPosition: [ItemID: Int] = [:]
        if let oldIds = old.ids, oldIds.count == old.items.count {
            oldPosition.reserveCapacity(oldIds.count)
            for (i, id) in oldIds.enumerated() where oldPosition[id] == nil {
                oldPosition[id] = i
            }
        }
        // For each new item, its old position when matched.
        var matchedOld = [Int?](repeating: nil, count: new.items.count)
        var isMatched = [Bool](repeating: false, count: old.items.count)
        var matchedSequence: [Int] = []
        for (j, id) in newIds.enumerated() {
            guard let i = oldPosition[id] else { continue }
            matchedOld[j] = i
            isMatched[i] = true
            matchedSequence.append(i)
        }
        let stays = longestIncreasingSubsequence(matchedSequence)

        for i in (0..<old.items.count).reversed() where !isMatched[i] {
            operations.append(.delete(ItemPath(section: s, item: i)))
        }
        var k = 0
        for j in 0..<new.items.count {
            let to = ItemPath(section: s, item: j)
            let sizing = new.items[j]
            let id = newIds.indices.contains(j) ? newIds[j] : nil
            guard let i = matchedOld[j] else {
                operations.append(.insert(to, sizing, id: id))
                continue
            }
            let from = ItemPath(section: s, item: i)
            let unchanged = old.items[i].isIdentical(to: sizing)
            switch (stays[k], unchanged) {
            case (true, true): break
            case (true, false): operations.append(.reload(from, sizing, id: nil))
            case (false, true): operations.append(.move(from: from, to: to))
            case (false, false):
                operations.append(.delete(from))
                operations.append(.insert(to, sizing, id: id))
            }
            k += 1
        }
    }
}

extension ItemSizing {
    /// Equal down to the bit, so that a diff never drops a change a frame could show (0 vs -0).
    func isIdentical(to other: ItemSizing) -> Bool {
        height.isIdentical(to: other.height) && aspectRatio.isIdentical(to: other.aspectRatio)
            && width.isIdentical(to: other.width) && isSpan == other.isSpan
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
