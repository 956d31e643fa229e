import Foundation
import LayoutTestKit
import Testing
@testable import LayoutJournal

/// The log's next segment is made ahead with zeros, from the newest retired segment when there is one:
/// the appends write over pages the file already has, and nothing of what the reused file held is ever
/// read back as a record.
@Suite struct LogRecyclingTests {
    private let feed = JournalKey(namespace: "", name: "feed")

    /// `feed`'s write at `version` (its prepare at 1, a change after), its body `text` and `padding` dots.
    private func write(_ text: String, version: Int, padding: Int = 0) -> JournalWrite {
        let body = Array(text.utf8) + [UInt8](repeating: UInt8(ascii: "."), count: padding)
        return version == 1 ? .rebuild(feed, version: 1, epoch: 0, items: 1, body: body) : .change(feed, version: version, items: version, body: body)
    }

    private func append(_ text: String, version: Int, padding: Int = 0, to log: AppendOnlyLog) throws {
        try log.append(write(text, version: version, padding: padding), source: nil, atMillis: 0) { _ in }
    }

    private func inode(of file: String) throws -> UInt64 {
        var info = stat()
        try #require(stat(file, &info) == 0)
        return UInt64(info.st_ino)
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
        let path = folder.file("j.db")
        let log = try AppendOnlyLog(path: path, role: .daemon, after: 0, nextLSN: 1, syncsZerosAhead: false)
        for version in 1...3 { try append("old \(version)", version: version, padding: 100_000, to: log) }
        try log.rotate()
        let first = path + "-log.1"
        let firstInode = try inode(of: first)
        let firstLength = try #require(try FileManager.default.attributesOfItem(atPath: first)[.size] as? Int)

        // Its records are all in the database: kept under its own name until the next segment is made.
        log.retire(through: 3)
        #expect(exists(first))
        log.prepareSpare()
        let spare = path + "-log.3"
        #expect(!exists(first))
        #expect(try inode(of: spare) == firstInode, "the spare is the retired file, not a new one")
        let data = try Data(contentsOf: URL(fileURLWithPath: spare))
        #expect(data.count >= firstLength)
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

    @Test func aSegmentKeptForReuseWhenACrashCameIsSkippedByTheReplay() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let path = folder.file("j.db")
        let log = try AppendOnlyLog(path: path, role: .daemon, after: 0, nextLSN: 1, syncsZerosAhead: false)
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

    @Test func anAsyncLogsNextSegmentHasZerosAheadTwiceWhatTheLastOneTook() throws {
        let folder = TemporaryFolder("layoutd-recycle")
        let path = folder.file("j.db")
        let log = try AppendOnlyLog(path: path, role: .daemon, after: 0, nextLSN: 1, syncsZerosAhead: false)
        defer { log.close(removing: true) }
        try append("a large change", version: 1, padding: 1_500_000, to: log)
        try log.rotate()
        let left = try #require(try FileManager.default.attributesOfItem(atPath: path + "-log.1")[.size] as? Int)
        log.prepareSpare()
        let spare = try Data(contentsOf: URL(fileURLWithPath: path + "-log.3"))
        #expect(spare.count >= 2 * (left - AppendOnlyLog.headerBytes))
        #expect(spare.dropFirst(AppendOnlyLog.headerBytes).allSatisfy { $0 == 0 })
    }
}
