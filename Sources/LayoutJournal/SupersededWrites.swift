extension Journal {
    /// `writes` without those a later rebuild of the same key replaces: a rebuild deletes every body its
    /// key had and sets every column of its row, so a key's rebuilds and changes before its last rebuild
    /// in a group commit change nothing the commit leaves. A client that prepares the same key again and
    /// again (a feed refreshed, a large job sent anew) would otherwise have each of its bodies, megabytes
    /// each, copied into the database only to be deleted in the same transaction. Drops and epochs are
    /// kept: a drop leaves the epoch a rebuild before it set, and an epoch only ever rises.
    static func withoutSuperseded<Item>(_ items: [Item], write: (Item) -> JournalWrite) -> [Item] {
        var rebuiltLater: Set<JournalKey> = []
        var kept: [Item] = []
        kept.reserveCapacity(items.count)
        for item in items.reversed() {
            let write = write(item)
            switch write {
            case .rebuild(let key, _, _, _, _):
                guard rebuiltLater.insert(key).inserted else { continue }
            case .change(let key, _, _, _):
                guard !rebuiltLater.contains(key) else { continue }
            case .drop, .epoch:
                break
            }
            kept.append(item)
        }
        return kept.reversed()
    }
}
