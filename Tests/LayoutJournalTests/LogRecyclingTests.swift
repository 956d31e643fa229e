import Foundation
import LayoutTestKit
import Testing
@testable import LayoutJournal

/// The log's next segment is made ahead with zeros, and with `sync` from the newest retired segment
/// when there is one: the appends write over pages the file already has, and nothing of what a reused
/// file held is ever read back as a record.
@Suite struct LogRecyclingTests {
    private let feed = JournalKey(namespace: "", name: "feed")

    /// A new log of the journal `j.db` in `folder`: the journal's path, and the log.
    private func newLog(in folder: TemporaryFolder, syncsZerosAhead: Bool) throws -> (path: String, log: AppendOnlyLog) {
        let path = folder.file("j.db")
        return (path, try AppendOnlyLog(path: path, role: .daemon, after: 0, nextLSN: 1, syncsZerosAhead: syncsZerosAhead))
    }

    /// The length of a segment holding `record` alone, nothing after it.
    private func segmentLength(holdingOnly record: LoggedWrite) -> Int {
        AppendOnlyLog.headerBytes + LogRecord.header(of: record).count + record.write.body.count
    }

    /// `feed`'s write at `version` (its prepare at 1, a change after), its body `text` and `padding` dots.
    private func write(_ text: String, version: Int, padding: Int = 0) -> JournalWrite {
        let body = Array(text.utf8) + [UInt8](repeating: UInt8(ascii: "."), count: padding)
        return version == 1 ? .rebuild(feed, version: 1, epoch: 0, items: 1, body: body) : .change(feed, version: version, items: version, body: body)
    }

    private func append(_ text: String, version: Int, padding: Int = 0, to log: AppendOnlyLog) throws {
        try log.append(write(text, version: version, padding: padding), source: nil, atMillis: 0) { _ in }
    }

    /// The file's device and inode; `descriptor` keeps it open, so the numbers cannot be another's.
    private func identity(of descriptor: Int32) throws -> [UInt64] {
        var info = stat()
        try #require(fstat(descriptor, &info) == 0)
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    private func length(of file: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
    }

    private func exists(_ file: String) -> Bool {
        FileManager.default.fileExists(atPath: file)
    }

    /// Every record the log at `path` holds, in order, as a start reads them.
    private func recovered(_ path: String) throws -> [LoggedWrite] {
        var records: [LoggedWrite] = []
        _ = try AppendOnlyLog.recover(path: path, role: .daemon) { records += $0 }
        return records
    }

    @Test func theNewestRetiredSegmentBecomesTheNextOneWithItsBytesZeroed() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let (path, log) = try newLog(in: folder, syncsZerosAhead: true)
        for version in 1...3 { try append("old \(version)", version: version, padding: 100_000, to: log) }
        try log.rotate()
        let first = path + "-log.1"
        let held = open(first, O_RDONLY)
        try #require(held >= 0)
        defer { _ = close(held) }
        let firstIdentity = try identity(of: held)

        // Its records are all in the database: kept under its own name until the next segment is made.
        log.retire(through: 3)
        #expect(exists(first))
        log.prepareSpare()
        let spare = path + "-log.3"
        #expect(!exists(first))
        let opened = open(spare, O_RDONLY)
        try #require(opened >= 0)
        defer { _ = close(opened) }
        #expect(try identity(of: opened) == firstIdentity, "the spare is the retired file, not a new one")
        // Zeros for twice what the last segment took (300 KB), at least 1 MiB.
        let data = try Data(contentsOf: URL(fileURLWithPath: spare))
        #expect(data.count == AppendOnlyLog.headerBytes + AppendOnlyLog.minimumPrefill)
        #expect(data.prefix(7) == Data("LDJLOG1".utf8))
        #expect(data.dropFirst(AppendOnlyLog.headerBytes).allSatisfy { $0 == 0 }, "nothing of the old records is left")

        // An append to it reads back as itself alone, shorter than what the file held before.
        try append("new 4", version: 4, to: log)
        try log.rotate()
        try append("new 5", version: 5, to: log)
        #expect(try segment(holding: "new 5", of: path) == spare)
        log.close(removing: false)
        let records = try recovered(path)
        #expect(records.map(\.lsn) == [4, 5])
        #expect(records.map { String(decoding: $0.write.body, as: UTF8.self) } == ["new 4", "new 5"])
    }

    /// A segment zeroed far ahead for a burst is cut back to the zeros the next one needs when reused.
    @Test func aReusedSegmentIsCutToTheZerosWanted() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let (path, log) = try newLog(in: folder, syncsZerosAhead: true)
        defer { log.close(removing: true) }
        try append("a burst", version: 1, padding: 3_000_000, to: log)
        log.prepareSpare()
        try log.rotate()
        // Segment 2 has zeros for twice the burst, and takes one small change.
        #expect(try length(of: path + "-log.2") > 6_000_000)
        try append("a small change", version: 2, to: log)
        log.prepareSpare()
        try log.rotate()
        log.retire(through: 2)
        let second = open(path + "-log.2", O_RDONLY)
        try #require(second >= 0)
        defer { _ = close(second) }
        let secondIdentity = try identity(of: second)
        log.prepareSpare()
        let reused = open(path + "-log.4", O_RDONLY)
        try #require(reused >= 0)
        defer { _ = close(reused) }
        #expect(try identity(of: reused) == secondIdentity)
        #expect(try length(of: path + "-log.4") == AppendOnlyLog.headerBytes + AppendOnlyLog.minimumPrefill)
    }

    @Test func noSegmentIsKeptWhenTheNextOneIsMadeAlready() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let (path, log) = try newLog(in: folder, syncsZerosAhead: true)
        defer { log.close(removing: true) }
        try append("a change", version: 1, to: log)
        try log.rotate()
        log.prepareSpare()
        log.retire(through: 1)
        #expect(try logSegments(of: path) == [path + "-log.2", path + "-log.3"])
    }

    @Test func aSegmentKeptForReuseWhenACrashCameIsSkippedByTheReplay() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let (path, log) = try newLog(in: folder, syncsZerosAhead: true)
        for version in 1...3 { try append("old \(version)", version: version, to: log) }
        try log.rotate()
        log.retire(through: 3)
        try append("new 4", version: 4, to: log)
        // The crash: the retired segment is still there, under its own name, its records whole.
        log.close(removing: false)
        #expect(exists(path + "-log.1"))
        #expect(try recovered(path).map(\.lsn) == [1, 2, 3, 4])

        // The database has every record the retired segment holds: only the one after them comes back.
        let storage = try SQLiteJournalStorage(path: path, role: .daemon, durability: nil)
        try storage.write(logged: (1...3).map { version in
            let write = write("old \(version)", version: version)
            return LoggedWrite(lsn: UInt64(version), write: write, atMillis: 0, checksum: Checksum.of(write.body))
        })
        let (_, last, _) = try Journal.replay(at: path, role: .daemon, into: storage)
        #expect(last == 4)
        #expect(try storage.logPosition() == 4)
        #expect(try storage.loadKeys().map(\.version) == [4])
        #expect(try storage.recipe(for: feed)?.bodies.map { String(decoding: $0, as: UTF8.self) } == ["old 1", "old 2", "old 3", "new 4"])
        #expect(try logSegments(of: path).isEmpty)
    }

    /// With `async` the zeros ahead are never synced, so a reused file's old bytes could come back after
    /// a power cut where they did not reach the disk: new files only, and the zeros cut from a segment
    /// as it is left, so that its sync writes its records alone.
    @Test func anAsyncLogHasZerosAheadInNewFilesAndLeavesThemOffTheDisk() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let (path, log) = try newLog(in: folder, syncsZerosAhead: false)
        defer { log.close(removing: true) }
        try append("a large change", version: 1, padding: 1_500_000, to: log)
        try log.rotate()
        let left = try length(of: path + "-log.1")
        log.prepareSpare()
        let spare = try Data(contentsOf: URL(fileURLWithPath: path + "-log.3"))
        #expect(spare.count == AppendOnlyLog.headerBytes + 2 * left)
        #expect(spare.dropFirst(AppendOnlyLog.headerBytes).allSatisfy { $0 == 0 })

        // Segment 3, the one with zeros ahead, is left with its record alone; the retired segments are
        // deleted, not kept for reuse.
        try append("a small change", version: 2, to: log)
        try log.rotate()
        try append("another", version: 3, to: log)
        try log.rotate()
        let records = try recovered(path)
        #expect(records.map(\.lsn) == [1, 2, 3])
        let third = try #require(records.last)
        #expect(try length(of: path + "-log.3") == segmentLength(holdingOnly: third))
        log.retire(through: 3)
        #expect(try logSegments(of: path) == [path + "-log.4"])
    }

    @Test func anAsyncLogLeftForTheNextStartHoldsItsRecordsAlone() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let (path, log) = try newLog(in: folder, syncsZerosAhead: false)
        try append("a change", version: 1, to: log)
        log.prepareSpare()
        try log.rotate()
        try append("the last change", version: 2, to: log)
        #expect(try length(of: path + "-log.2") > AppendOnlyLog.minimumPrefill, "zeros ahead")
        log.close(removing: false)
        let last = try #require(try recovered(path).last)
        #expect(last.lsn == 2)
        #expect(try length(of: path + "-log.2") == segmentLength(holdingOnly: last))
    }
}
