import LayoutTestKit
import Testing
@testable import LayoutJournal

/// A group commit leaves out a key's rebuilds and changes that a later rebuild of the key in the same
/// commit replaces: the database must end as it would with every write.
@Suite struct SupersededWritesTests {
    private let a = JournalKey(namespace: "", name: "a")
    private let b = JournalKey(namespace: "", name: "b")

    private func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aLaterRebuildReplacesItsKeysEarlierRebuildsAndChangesOnly() {
        let writes: [JournalWrite] = [
            .rebuild(a, version: 1, epoch: 0, items: 1, body: body("a1")), .change(a, version: 2, items: 2, body: body("a2")),
            .rebuild(b, version: 1, epoch: 0, items: 1, body: body("b1")), .epoch(a, epoch: 3),
            .rebuild(a, version: 3, epoch: 3, items: 3, body: body("a3")), .change(a, version: 4, items: 4, body: body("a4")),
            .change(b, version: 2, items: 2, body: body("b2")), .drop(b, version: 3),
        ]
        let kept = Journal.withoutSuperseded(writes) { $0 }
        #expect(kept.map { "\($0)" } == [writes[2], writes[3], writes[4], writes[5], writes[6], writes[7]].map { "\($0)" })
        #expect(Journal.withoutSuperseded([JournalWrite]()) { $0 }.isEmpty)
    }

    /// Random batches over three keys, each applied whole to one SQLite journal and without what is
    /// superseded to another: the same keys, versions and recipes.
    @Test(arguments: 1...20)
    func theDatabaseEndsAsItWouldWithEveryWrite(seed: UInt64) throws {
        let folder = TemporaryFolder("layoutd-superseded")
        let whole = try SQLiteJournalStorage(path: folder.file("whole.db"), role: .daemon, durability: nil)
        let filtered = try SQLiteJournalStorage(path: folder.file("filtered.db"), role: .daemon, durability: nil)
        var random = SeededGenerator(seed: seed)
        let keys = [a, b, JournalKey(namespace: "n", name: "a")]
        var versions = [JournalKey: Int](), kept = Set<JournalKey>()
        for batch in 0..<6 {
            var writes: [JournalWrite] = []
            for step in 0..<Int.random(in: 1...12, using: &random) {
                let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                let version = versions[key, default: 0] + 1
                let text = body("\(key.name) \(batch).\(step)")
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3:
                    writes.append(.rebuild(key, version: version, epoch: UInt64.random(in: 0...5, using: &random), items: step, body: text))
                    kept.insert(key)
                case 3..<7 where kept.contains(key):
                    writes.append(.change(key, version: version, items: step, body: text))
                case 7:
                    writes.append(.drop(key, version: version))
                    kept.remove(key)
                case 8 where kept.contains(key):
                    writes.append(.epoch(key, epoch: UInt64.random(in: 0...9, using: &random)))
                    continue
                default:
                    continue
                }
                versions[key] = version
            }
            try whole.write(writes, atMillis: Int64(batch))
            try filtered.write(Journal.withoutSuperseded(writes) { $0 }, atMillis: Int64(batch))
        }
        #expect(try filtered.loadKeys().sorted { $0.key < $1.key } == whole.loadKeys().sorted { $0.key < $1.key })
        for key in keys {
            let (left, right) = (try filtered.recipe(for: key), try whole.recipe(for: key))
            #expect(left?.base == right?.base && left?.bodies == right?.bodies, "\(key)")
        }
    }
}
