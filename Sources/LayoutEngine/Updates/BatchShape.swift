/// The section structure after a batch that passed stage 1 of `BatchValidator`, and the checks that
/// need it (stage 2): item after-ranges, item updates landing in a reloaded section, item ids.
struct BatchShape {
    /// For each section after the batch, the section it continues; nil for an inserted one.
    let oldSection: [Int?]
    /// For each section before the batch, where it is after it; nil for a deleted one.
    let newSection: [Int?]

    /// Survivors keep their order and fill the after-indices no insert or move claims.
    ///
    /// Stage 1 guarantees that this adds up: `new = old - deletes + inserts`, and the after-indices
    /// claimed by inserts and moves are distinct and in range, so exactly `old - deletes - moves`
    /// places are left for the survivors.
    init(claims: BatchClaims, oldSectionCount: Int, newSectionCount: Int) {
        var oldSection = [Int?](repeating: nil, count: newSectionCount)
        var newSection = [Int?](repeating: nil, count: oldSectionCount)
        var survivor = 0
        for t in 0..<newSectionCount where claims.insertedSections[t] == nil {
            if let source = claims.sectionMoveSources[t] {
                oldSection[t] = source
                newSection[source] = t
                continue
            }
            while survivor < oldSectionCount, claims.deletedSections[survivor] != nil || claims.movedFromSections[survivor] != nil {
                survivor += 1
            }
            guard survivor < oldSectionCount else { break }
            oldSection[t] = survivor
            newSection[survivor] = t
            survivor += 1
        }
        self.oldSection = oldSection
        self.newSection = newSection
    }

    /// Items in section `t` after the batch; `t` must continue an old section.
    func itemCount(afterBatchIn t: Int, input: LayoutInput, claims: BatchClaims) -> Int {
        guard let s = oldSection[t] else { return 0 }
        return input.sections[s].items.count - claims.removedCount[s, default: 0] + claims.incomingCount[t, default: 0]
    }

    /// Stage 2 as a whole: the first offender in request order of `destinationOffender` and `idOffender`.
    func check(_ operations: [BatchUpdate.Operation], input: LayoutInput, claims: BatchClaims, keepsIds: [Bool]) throws(LayoutError) {
        let offenders = [
            destinationOffender(operations, input: input, claims: claims),
            idOffender(operations, input: input, claims: claims, keepsIds: keepsIds),
        ].compactMap { $0 }
        if let first = offenders.min(by: { $0.index < $1.index }) { throw first.error }
    }

    /// The after-side of item inserts and move destinations: the first offender in request order;
    /// with a reloaded section, the later of the two updates.
    func destinationOffender(_ operations: [BatchUpdate.Operation], input: LayoutInput, claims: BatchClaims) -> (index: Int, error: LayoutError)? {
        var offender: LayoutError?
        var offenderIndex = Int.max
        for (n, operation) in operations.enumerated() where n < offenderIndex {
            let path: ItemPath
            switch operation {
            case .insert(let to, _, _): path = to
            case .move(_, let to): path = to
            default: continue
            }
            // Stage 1 rejected item updates inside inserted sections.
            guard let s = oldSection[path.section] else { continue }
            if let r = claims.reloadedSections[s] {
                if r > n {
                    if r < offenderIndex {
                        offenderIndex = r
                        offender = BatchValidator.reject(r, "reloads section \(s), inside which updates[\(n)] updates an item")
                    }
                } else {
                    offenderIndex = n
                    offender = BatchValidator.reject(n, "updates an item inside section \(path.section), which updates[\(r)] reloads")
                }
                continue
            }
            let count = itemCount(afterBatchIn: path.section, input: input, claims: claims)
            guard path.item >= 0, path.item < count else {
                offenderIndex = n
                offender = BatchValidator.reject(n, "item \(path) is out of range: section \(path.section) has \(count) items after the batch")
                continue
            }
        }
        guard let offender else { return nil }
        return (offenderIndex, offender)
    }

    /// Whether each section after the batch keeps ids (meaningful for continued sections only).
    ///
    /// A section's items either all have ids or none has. A section keeps its old choice while any of its
    /// items survives; one that loses all of them takes the choice of the first item arriving in it
    /// (in request order).
    func keepsIds(_ operations: [BatchUpdate.Operation], input: LayoutInput, claims: BatchClaims) -> [Bool] {
        var firstArrival: [Int: Bool] = [:]
        for operation in operations {
            guard let (t, hasId) = arrival(operation, input: input), firstArrival[t] == nil else { continue }
            firstArrival[t] = hasId
        }
        var keepsIds = [Bool](repeating: false, count: oldSection.count)
        for t in oldSection.indices {
            guard let s = oldSection[t] else { continue }
            let old = input.sections[s]
            let hadIds = old.ids != nil
            let survivors = old.items.count - claims.removedCount[s, default: 0]
            keepsIds[t] = survivors > 0 ? hadIds : (firstArrival[t] ?? hadIds)
        }
        return keepsIds
    }

    /// The first update that breaks its section's choice of ids (`keepsIds`). Arrivals in a reloaded
    /// section are `destinationOffender`'s to report.
    func idOffender(_ operations: [BatchUpdate.Operation], input: LayoutInput, claims: BatchClaims, keepsIds: [Bool]) -> (index: Int, error: LayoutError)? {
        for (n, operation) in operations.enumerated() {
            if let (t, hasId) = arrival(operation, input: input), hasId != keepsIds[t],
               let s = oldSection[t], claims.reloadedSections[s] == nil {
                return (n, BatchValidator.reject(n, hasId
                    ? "brings an item with an id into section \(t), whose items have no ids"
                    : "brings an item without an id into section \(t), whose items have ids"))
            }
            if case .reload(let path, _, let id?) = operation, input.sections[path.section].ids == nil {
                return (n, BatchValidator.reject(n, "gives item \(path) the id \(id), but the items of section \(path.section) have no ids"))
            }
        }
        return nil
    }

    /// The after-section an item arrives in, and whether it brings an id.
    private func arrival(_ operation: BatchUpdate.Operation, input: LayoutInput) -> (section: Int, hasId: Bool)? {
        switch operation {
        case .insert(let to, _, let id): return (to.section, id != nil)
        case .move(let from, let to): return (to.section, input.sections[from.section].ids != nil)
        default: return nil
        }
    }
}
