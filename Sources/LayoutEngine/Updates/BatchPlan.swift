/// A validated batch, arranged for application: where every section after the batch comes from, what
/// happens to its items, and the normalized form subscribers receive.
struct BatchPlan: Sendable {
    /// Where a section after the batch comes from.
    enum Source: Sendable {
        /// An old section (possibly moved), with its item changes; nil when its items are untouched.
        case continued(old: Int, edit: SectionEdit?)
        /// A section given whole by `insertSection` or `reloadSection`.
        case replaced(Section)
    }

    /// One entry per section after the batch.
    let sources: [Source]
    let normalized: NormalizedBatch

    /// Validates `batch` against `input` (see `BatchValidator` for the order of the checks).
    init(_ batch: BatchUpdate, for input: LayoutInput, limits: InputLimits) throws(LayoutError) {
        var validator = BatchValidator(batch, input: input, limits: limits)
        let claims = try validator.checkUpdates()
        let operations = batch.operations
        let shape = BatchShape(claims: claims, oldSectionCount: validator.oldSectionCount, newSectionCount: validator.newSectionCount)
        let keepsIds = shape.keepsIds(operations, input: input, claims: claims)
        try shape.check(operations, input: input, claims: claims, keepsIds: keepsIds)
        try Self.checkLimits(operations, input: input, newSectionCount: validator.newSectionCount, limits: limits)

        var edits: [Int: SectionEdit] = [:]
        var replaced: [Int: Section] = [:]
        // Every section an item update names exists on its side of the batch: stage 1 rejected the rest.
        func new(_ old: Int) -> Int { shape.newSection[old] ?? old }
        for operation in operations {
            switch operation {
            case .delete(let path):
                edits[new(path.section), default: SectionEdit()].removed.append(path.item)
            case let .insert(path, sizing, id):
                edits[path.section, default: SectionEdit()].insertions.append(.init(item: path.item, arrival: .new(sizing, id: id)))
            case let .move(from, to):
                edits[new(from.section), default: SectionEdit()].removed.append(from.item)
                edits[to.section, default: SectionEdit()].insertions.append(.init(item: to.item, arrival: .moved(from)))
            case let .reload(path, sizing, id):
                edits[new(path.section), default: SectionEdit()].reloads.append(.init(item: path.item, sizing: sizing, id: id))
            case let .insertSection(section, contents):
                replaced[section] = contents
            case let .reloadSection(section, contents):
                replaced[new(section)] = contents
            case .deleteSection, .moveSection:
                break
            }
        }
        sources = shape.oldSection.indices.map { t in
            if let section = replaced[t] { return .replaced(section) }
            guard var edit = edits[t] else { return .continued(old: shape.oldSection[t] ?? t, edit: nil) }
            edit.sort()
            edit.keepsIds = keepsIds[t]
            return .continued(old: shape.oldSection[t] ?? t, edit: edit)
        }
        normalized = NormalizedBatch(listing: operations)
    }

    /// The sections after the batch.
    func sections(applyingTo old: [Section]) -> [Section] {
        sources.map { source in
            switch source {
            case .continued(let s, nil): return old[s]
            case .continued(let s, let edit?): return edit.applied(to: old[s], sections: old)
            case .replaced(let section): return section
            }
        }
    }

    /// The batch must leave the layout within the limits `prepare` enforces (`too_large`).
    private static func checkLimits(_ operations: [BatchUpdate.Operation], input: LayoutInput, newSectionCount: Int, limits: InputLimits) throws(LayoutError) {
        guard newSectionCount <= limits.maxSections else {
            throw LayoutError(.tooLarge, "\(newSectionCount) sections after the batch is over the limit of \(limits.maxSections)", path: "updates")
        }
        var total = input.itemCount
        for operation in operations {
            switch operation {
            case .delete: total -= 1
            case .insert: total += 1
            case .deleteSection(let s): total -= input.sections[s].items.count
            case .insertSection(_, let section): total += section.items.count
            case .reloadSection(let s, let section): total += section.items.count - input.sections[s].items.count
            case .move, .reload, .moveSection: break
            }
        }
        guard total <= limits.maxItems else {
            throw LayoutError(.tooLarge, "\(total) items after the batch is over the limit of \(limits.maxItems)", path: "updates")
        }
    }
}

extension NormalizedBatch {
    /// The normalized form of a batch's operations (which must be valid).
    init(listing operations: [BatchUpdate.Operation]) {
        var normalized = NormalizedBatch()
        for operation in operations {
            switch operation {
            case .delete(let path): normalized.deletes.append(path)
            case .insert(let path, _, _): normalized.inserts.append(path)
            case let .move(from, to): normalized.moves.append(.init(from: from, to: to))
            case .reload(let path, _, _): normalized.reloads.append(path)
            case .deleteSection(let section): normalized.sections.deletes.append(section)
            case .insertSection(let section, _): normalized.sections.inserts.append(section)
            case let .moveSection(from, to): normalized.sections.moves.append(.init(from: from, to: to))
            case .reloadSection(let section, _): normalized.sections.reloads.append(section)
            }
        }
        self = normalized.sorted()
    }

    /// The documented order: deletes descending, inserts ascending, moves and reloads ascending by source.
    func sorted() -> NormalizedBatch {
        NormalizedBatch(
            deletes: deletes.sorted(by: >),
            inserts: inserts.sorted(),
            moves: moves.sorted { $0.from < $1.from },
            reloads: reloads.sorted(),
            sections: SectionChanges(
                deletes: sections.deletes.sorted(by: >),
                inserts: sections.inserts.sorted(),
                moves: sections.moves.sorted { $0.from < $1.from },
                reloads: sections.reloads.sorted()
            )
        )
    }
}
