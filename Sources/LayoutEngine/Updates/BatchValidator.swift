/// Checks a batch against LAYOUTS.md's rules, in request order, and reports the first offending update
/// as `invalid_update` at `updates[N]`.
///
/// Two stages, because an item's after-index can only be judged once the section structure after the
/// batch is known:
/// 1. every update in request order against the before-state (ranges of before-indices, the section
///    range of after-indices, valid sizing) and against every earlier update (conflicts);
/// 2. once stage 1 holds, the after-ranges of item inserts and move destinations, item updates that land
///    in a reloaded section, and the consistency of item ids (see `BatchShape`).
/// Inside each stage the reported update is the first offender in the request.
struct BatchValidator {
    let input: LayoutInput
    let operations: [BatchUpdate.Operation]
    let limits: InputLimits
    let oldSectionCount: Int
    /// Counted from the request alone, so that it exists even for a batch that later proves invalid.
    let newSectionCount: Int
    private(set) var claims = BatchClaims()

    init(_ batch: BatchUpdate, input: LayoutInput, limits: InputLimits) {
        self.input = input
        self.operations = batch.operations
        self.limits = limits
        oldSectionCount = input.sections.count
        var count = input.sections.count
        for operation in batch.operations {
            switch operation {
            case .deleteSection: count -= 1
            case .insertSection: count += 1
            default: break
            }
        }
        newSectionCount = count
    }

    /// Stage 1 over every update; returns the claims stage 2 and the plan are built from.
    mutating func checkUpdates() throws(LayoutError) -> BatchClaims {
        for (n, operation) in operations.enumerated() {
            try check(operation, at: n)
        }
        return claims
    }

    private mutating func check(_ operation: BatchUpdate.Operation, at n: Int) throws(LayoutError) {
        switch operation {
        case .delete(let path): try checkDelete(path, at: n)
        case .insert(let path, let sizing, _): try checkInsert(path, sizing, at: n)
        case .move(let from, let to): try checkMove(from: from, to: to, at: n)
        case .reload(let path, let sizing, _): try checkReload(path, sizing, at: n)
        case .deleteSection(let section): try checkDeleteSection(section, at: n)
        case .insertSection(let section, let contents): try checkInsertSection(section, contents, at: n)
        case .moveSection(let from, let to): try checkMoveSection(from: from, to: to, at: n)
        case .reloadSection(let section, let contents): try checkReloadSection(section, contents, at: n)
        }
    }

    // MARK: Items

    private mutating func checkDelete(_ path: ItemPath, at n: Int) throws(LayoutError) {
        try requireBeforeRange(path, at: n)
        try requireEditableOldSection(path.section, at: n)
        try requireUnclaimedSource(path, at: n, verb: "deletes")
        claims.deleted[path] = n
        claims.removedCount[path.section, default: 0] += 1
        claims.noteItemUpdate(inOldSection: path.section, at: n)
    }

    private mutating func checkInsert(_ path: ItemPath, _ sizing: ItemSizing, at n: Int) throws(LayoutError) {
        try requireAfterSectionRange(path.section, at: n)
        try Self.validate(sizing, path: "updates[\(n)].item")
        try requireEditableNewSection(path.section, at: n)
        try requireUnclaimedDestination(path, at: n, verb: "inserts at")
        claims.inserted[path] = n
        claims.incomingCount[path.section, default: 0] += 1
        claims.noteItemUpdate(intoNewSection: path.section, at: n)
    }

    private mutating func checkMove(from: ItemPath, to: ItemPath, at n: Int) throws(LayoutError) {
        try requireBeforeRange(from, at: n)
        try requireAfterSectionRange(to.section, at: n)
        try requireEditableOldSection(from.section, at: n)
        try requireEditableNewSection(to.section, at: n)
        try requireUnclaimedSource(from, at: n, verb: "moves")
        try requireUnclaimedDestination(to, at: n, verb: "moves an item to")
        claims.movedFrom[from] = n
        claims.movedTo[to] = n
        claims.removedCount[from.section, default: 0] += 1
        claims.incomingCount[to.section, default: 0] += 1
        claims.noteItemUpdate(inOldSection: from.section, at: n)
        claims.noteItemUpdate(intoNewSection: to.section, at: n)
    }

    private mutating func checkReload(_ path: ItemPath, _ sizing: ItemSizing, at n: Int) throws(LayoutError) {
        try requireBeforeRange(path, at: n)
        try Self.validate(sizing, path: "updates[\(n)].item")
        try requireEditableOldSection(path.section, at: n)
        try requireUnclaimedSource(path, at: n, verb: "reloads")
        claims.reloaded[path] = n
        claims.noteItemUpdate(inOldSection: path.section, at: n)
    }

    private func requireBeforeRange(_ path: ItemPath, at n: Int) throws(LayoutError) {
        guard path.section >= 0, path.section < oldSectionCount else {
            throw Self.reject(n, "item \(path) is out of range: there are \(oldSectionCount) sections before the batch")
        }
        let count = input.sections[path.section].items.count
        guard path.item >= 0, path.item < count else {
            throw Self.reject(n, "item \(path) is out of range: section \(path.section) has \(count) items before the batch")
        }
    }

    private func requireAfterSectionRange(_ section: Int, at n: Int) throws(LayoutError) {
        guard section >= 0, section < newSectionCount else {
            throw Self.reject(n, "section \(section) is out of range: there are \(newSectionCount) sections after the batch")
        }
    }

    /// An item update by before-index must not touch a deleted or reloaded section.
    private func requireEditableOldSection(_ section: Int, at n: Int) throws(LayoutError) {
        if let m = claims.deletedSections[section] {
            throw Self.reject(n, "updates an item inside section \(section), which updates[\(m)] deletes")
        }
        if let m = claims.reloadedSections[section] {
            throw Self.reject(n, "updates an item inside section \(section), which updates[\(m)] reloads")
        }
    }

    /// An item update by after-index must not touch an inserted section (reloaded ones: stage 2).
    private func requireEditableNewSection(_ section: Int, at n: Int) throws(LayoutError) {
        if let m = claims.insertedSections[section] {
            throw Self.reject(n, "updates an item inside section \(section), which updates[\(m)] inserts")
        }
    }

    /// A before-location may be deleted, moved away or reloaded by one update only.
    private func requireUnclaimedSource(_ path: ItemPath, at n: Int, verb: String) throws(LayoutError) {
        if let m = claims.deleted[path] {
            throw Self.reject(n, "\(verb) item \(path), which updates[\(m)] deletes")
        }
        if let m = claims.movedFrom[path] {
            throw Self.reject(n, "\(verb) item \(path), which updates[\(m)] moves")
        }
        if let m = claims.reloaded[path] {
            throw Self.reject(n, "\(verb) item \(path), which updates[\(m)] reloads")
        }
    }

    /// An after-location may be filled by one insert or move destination only.
    private func requireUnclaimedDestination(_ path: ItemPath, at n: Int, verb: String) throws(LayoutError) {
        if let m = claims.inserted[path] {
            throw Self.reject(n, "\(verb) \(path), where updates[\(m)] inserts")
        }
        if let m = claims.movedTo[path] {
            throw Self.reject(n, "\(verb) \(path), where updates[\(m)] moves an item")
        }
    }

    // MARK: Sections

    private mutating func checkDeleteSection(_ section: Int, at n: Int) throws(LayoutError) {
        try requireBeforeSectionRange(section, at: n)
        try requireUnclaimedSourceSection(section, at: n, verb: "deletes")
        if let m = claims.firstItemUpdateInOldSection[section] {
            throw Self.reject(n, "deletes section \(section), inside which updates[\(m)] updates an item")
        }
        claims.deletedSections[section] = n
    }

    private mutating func checkInsertSection(_ section: Int, _ contents: Section, at n: Int) throws(LayoutError) {
        try requireAfterSectionRange(section, at: n)
        try validate(contents, path: "updates[\(n)].section")
        try requireUnclaimedDestinationSection(section, at: n, verb: "inserts a section at")
        if let m = claims.firstItemUpdateIntoNewSection[section] {
            throw Self.reject(n, "inserts section \(section), inside which updates[\(m)] updates an item")
        }
        claims.insertedSections[section] = n
    }

    private mutating func checkMoveSection(from: Int, to: Int, at n: Int) throws(LayoutError) {
        try requireBeforeSectionRange(from, at: n)
        try requireAfterSectionRange(to, at: n)
        try requireUnclaimedSourceSection(from, at: n, verb: "moves")
        try requireUnclaimedDestinationSection(to, at: n, verb: "moves a section to")
        claims.movedFromSections[from] = n
        claims.movedToSections[to] = n
        claims.sectionMoveSources[to] = from
    }

    private mutating func checkReloadSection(_ section: Int, _ contents: Section, at n: Int) throws(LayoutError) {
        try requireBeforeSectionRange(section, at: n)
        try validate(contents, path: "updates[\(n)].section")
        try requireUnclaimedSourceSection(section, at: n, verb: "reloads")
        if let m = claims.firstItemUpdateInOldSection[section] {
            throw Self.reject(n, "reloads section \(section), inside which updates[\(m)] updates an item")
        }
        claims.reloadedSections[section] = n
    }

    private func requireBeforeSectionRange(_ section: Int, at n: Int) throws(LayoutError) {
        guard section >= 0, section < oldSectionCount else {
            throw Self.reject(n, "section \(section) is out of range: there are \(oldSectionCount) sections before the batch")
        }
    }

    private func requireUnclaimedSourceSection(_ section: Int, at n: Int, verb: String) throws(LayoutError) {
        if let m = claims.deletedSections[section] {
            throw Self.reject(n, "\(verb) section \(section), which updates[\(m)] deletes")
        }
        if let m = claims.movedFromSections[section] {
            throw Self.reject(n, "\(verb) section \(section), which updates[\(m)] moves")
        }
        if let m = claims.reloadedSections[section] {
            throw Self.reject(n, "\(verb) section \(section), which updates[\(m)] reloads")
        }
    }

    private func requireUnclaimedDestinationSection(_ section: Int, at n: Int, verb: String) throws(LayoutError) {
        if let m = claims.insertedSections[section] {
            throw Self.reject(n, "\(verb) \(section), where updates[\(m)] inserts a section")
        }
        if let m = claims.movedToSections[section] {
            throw Self.reject(n, "\(verb) \(section), where updates[\(m)] moves a section")
        }
    }

    // MARK: Contents

    /// New sizing must obey the same rules as a prepared input's (`invalid_request`, at the item's field).
    /// `path` is made only for an error (an `update`'s every insert and reload comes through here).
    static func validate(_ sizing: ItemSizing, path: @autoclosure () -> String) throws(LayoutError) {
        if let h = sizing.height { try LayoutInput.requireNonNegative(h, "\(path()).height") }
        if let r = sizing.aspectRatio { try LayoutInput.requirePositive(r, "\(path()).aspectRatio") }
        if let w = sizing.width { try LayoutInput.requireNonNegative(w, "\(path()).width") }
    }

    /// A new section must be one `prepare` would accept in this layout; errors point into the update.
    private func validate(_ section: Section, path: String) throws(LayoutError) {
        var single = input
        single.sections = [section]
        do throws(LayoutError) {
            try single.validate(limits: limits)
        } catch {
            var error = error
            let prefix = "sections[0]"
            if let inner = error.path, inner.hasPrefix(prefix) {
                error.path = path + inner.dropFirst(prefix.count)
            } else {
                error.path = path
            }
            throw error
        }
    }

    static func reject(_ n: Int, _ message: String) -> LayoutError {
        LayoutError(.invalidUpdate, message, path: "updates[\(n)]")
    }
}
