/// Which update (by its index in the request) first claimed each location, section or item.
///
/// Rules that relate two updates are checked when the later one arrives, so the later one is always
/// the offender (LAYOUTS.md: "of two conflicting updates, the later one in the request is the offending one").
struct BatchClaims {
    // Sections, by before-index.
    var deletedSections: [Int: Int] = [:]
    var movedFromSections: [Int: Int] = [:]
    var reloadedSections: [Int: Int] = [:]
    // Sections, by after-index.
    var insertedSections: [Int: Int] = [:]
    var movedToSections: [Int: Int] = [:]
    /// A moved section's source, by its after-index.
    var sectionMoveSources: [Int: Int] = [:]
    /// The first item update that names a section by before-index (delete, reload, a move's source).
    var firstItemUpdateInOldSection: [Int: Int] = [:]
    /// The first item update that names a section by after-index (insert, a move's destination).
    var firstItemUpdateIntoNewSection: [Int: Int] = [:]

    // Items, by before-index.
    var deleted: [ItemPath: Int] = [:]
    var movedFrom: [ItemPath: Int] = [:]
    var reloaded: [ItemPath: Int] = [:]
    // Items, by after-index.
    var inserted: [ItemPath: Int] = [:]
    var movedTo: [ItemPath: Int] = [:]

    /// Items leaving each old section (deletes and move sources).
    var removedCount: [Int: Int] = [:]
    /// Items arriving in each new section (inserts and move destinations).
    var incomingCount: [Int: Int] = [:]

    mutating func noteItemUpdate(inOldSection section: Int, at n: Int) {
        if firstItemUpdateInOldSection[section] == nil { firstItemUpdateInOldSection[section] = n }
    }

    mutating func noteItemUpdate(intoNewSection section: Int, at n: Int) {
        if firstItemUpdateIntoNewSection[section] == nil { firstItemUpdateIntoNewSection[section] = n }
    }
}
