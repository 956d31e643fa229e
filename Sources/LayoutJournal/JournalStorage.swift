/// A journal's database, as the journal's threads use it: one instance writes (on the journal thread),
/// another reads (for restores). Each instance is used by one thread at a time.
protocol JournalStorage: AnyObject {
    /// Every key's state, for the index the journal keeps in memory.
    func loadKeys() throws(JournalError) -> [JournalKeyState]
    /// One key's state, looked up by the key (nil for a key never written): what the index takes for
    /// the key while `loadKeys` has not filled it yet.
    func keyState(for key: JournalKey) throws(JournalError) -> JournalKeyState?
    /// Writes `batch` in one transaction (one group commit).
    func write(_ batch: [JournalWrite], atMillis: Int64) throws(JournalError)
    /// The bodies that rebuild `key`, each checked; nil when the key is not kept.
    func recipe(for key: JournalKey) throws(JournalError) -> JournalRecipe?
    /// Makes what was written durable (the `async` mode's sync every `journal.syncMillis`).
    func makeDurable() throws(JournalError)
    /// Bytes the journal takes on its disk or in its database.
    func byteCount() -> Int
    /// A write that changes nothing, to learn whether writing works again after a failure.
    func probe() throws(JournalError)
    /// Housekeeping off the writer's thread (SQLite's WAL checkpoint); called on the reading instance.
    func checkpoint()
}

extension JournalStorage {
    func checkpoint() {}
}

/// A storage an append-only log can stand in front of (`AppendOnlyLog`): it takes writes that came
/// through the log, with the lsn of the last in the same transaction, and says which lsn it has.
protocol LoggedJournalStorage: JournalStorage {
    /// Writes `batch`, which came through the log, in one transaction with the lsn of its last write.
    func write(logged batch: [LoggedWrite]) throws(JournalError)
    /// The lsn of the last logged write the storage has (0 before the first).
    func logPosition() throws(JournalError) -> UInt64
}

/// Who writes a journal: a single daemon's layouts and a broker's recipes are not the same thing, and
/// one is never read as the other.
public enum JournalRole: String, Sendable {
    case daemon
    case broker
}

/// What a journal file or database says it is (its `journal_meta`).
enum JournalFormat {
    /// Bumped when the tables change in a way an older layoutd would misread.
    static let current = "2"
}
