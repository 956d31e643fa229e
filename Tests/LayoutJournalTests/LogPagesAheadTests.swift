import Dispatch
import Foundation
import LayoutTestKit
import Testing
@testable import LayoutJournal

#if canImport(Glibc)
import Glibc
#endif

/// With `async`, a large record leaves a hole for two more as large past it, read into the page cache on
/// another thread, so that the next large records are written over pages the file has.
@Suite struct LogPagesAheadTests {
    private let feed = JournalKey(namespace: "", name: "feed")
    private let large = AppendOnlyLog.largeRecordBytes + 4096

    private func newLog(in folder: TemporaryFolder, syncsZerosAhead: Bool = false) throws -> (path: String, log: AppendOnlyLog) {
        let path = folder.file("j.db")
        return (path, try AppendOnlyLog(path: path, role: .daemon, after: 0, nextLSN: 1, syncsZerosAhead: syncsZerosAhead))
    }

    /// `feed`'s write at `version` (its prepare at 1, a change after), `bytes` long, every byte `version`.
    private func write(version: Int, bytes: Int) -> JournalWrite {
        let body = [UInt8](repeating: UInt8(version), count: bytes)
        return version == 1 ? .rebuild(feed, version: 1, epoch: 0, items: 1, body: body) : .change(feed, version: version, items: version, body: body)
    }

    /// Appends `feed`'s write at `version`; where its record ends in the segment.
    @discardableResult
    private func append(version: Int, bytes: Int, to log: AppendOnlyLog) throws -> Int {
        let logged = try log.append(write(version: version, bytes: bytes), source: nil, atMillis: 0) { $0 }
        return LogRecord.header(of: logged).count + bytes
    }

    private func length(of file: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
    }

    /// How many of the pages of `file` from `start` to `end` are in the page cache (`mincore`).
    private func cachedPages(of file: String, from start: Int, to end: Int) throws -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = start / page * page
        let descriptor = open(file, O_RDONLY)
        try #require(descriptor >= 0)
        defer { _ = close(descriptor) }
        let count = end - first
        let mapped = mmap(nil, count, PROT_READ, MAP_SHARED, descriptor, off_t(first))
        try #require(mapped != MAP_FAILED)
        guard let mapped else { return 0 }
        defer { _ = munmap(mapped, count) }
        var resident = [UInt8](repeating: 0, count: (count + page - 1) / page)
        try #require(mincore(mapped, count, &resident) == 0)
        return resident.filter { $0 & 1 == 1 }.count
    }

    /// Whether reading a hole in a file of `folder` brings its pages into the page cache.
    private func holesTakePagesWhenRead(in folder: TemporaryFolder) throws -> Bool {
        let file = folder.file("hole")
        let descriptor = open(file, O_RDWR | O_CREAT, 0o644)
        try #require(descriptor >= 0)
        defer { _ = close(descriptor); unlink(file) }
        let bytes = 1 << 16
        try #require(ftruncate(descriptor, off_t(bytes)) == 0)
        var buffer = [UInt8](repeating: 1, count: bytes)
        try #require(pread(descriptor, &buffer, bytes, 0) == bytes)
        return try cachedPages(of: file, from: 0, to: bytes) > 0
    }

    @Test func aLargeRecordLeavesAHoleForTwoMoreReadIntoThePageCache() throws {
        let folder = TemporaryFolder("layoutd-pages-ahead")
        let (path, log) = try newLog(in: folder)
        defer { log.stopAppending(); log.close(removing: true) }
        let segment = path + "-log.1"
        let end = AppendOnlyLog.headerBytes + (try append(version: 1, bytes: large, to: log))
        let record = end - AppendOnlyLog.headerBytes
        #expect(try length(of: segment) == end + 2 * record)

        // The hole's pages come into the page cache; a hole just made has none until it is read. (Not
        // where reading a hole takes no pages, as on tmpfs, which reads it from the one zero page.)
        guard try holesTakePagesWhenRead(in: folder) else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = (2 * record) / page
        let deadline = DispatchTime.now() + .seconds(30)
        var cached = 0
        while DispatchTime.now() < deadline {
            cached = try cachedPages(of: segment, from: end + page, to: end + 2 * record)
            if cached >= pages - 1 { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(cached >= pages - 1, "\(cached) of \(pages) pages read ahead")

        // The next large record goes into the hole, and the hole is kept two records long past it.
        let second = end + (try append(version: 2, bytes: large, to: log))
        #expect(try length(of: segment) == second + 2 * record)
        // A small record takes from the hole and leaves it.
        try append(version: 3, bytes: 200, to: log)
        #expect(try length(of: segment) == second + 2 * record)
    }

    @Test func theHoleReadsAsZerosAheadAndIsCutFromASegmentLeft() throws {
        let folder = TemporaryFolder("layoutd-pages-ahead")
        let (path, log) = try newLog(in: folder)
        let end = AppendOnlyLog.headerBytes + (try append(version: 1, bytes: large, to: log)) + (try append(version: 2, bytes: 300, to: log))
        #expect(try length(of: path + "-log.1") > end)

        // A crash now: a start reads the records, and the hole after them as zeros ahead.
        var records: [LoggedWrite] = []
        let recovered = try AppendOnlyLog.recover(path: path, role: .daemon) { records += $0 }
        #expect(records.map(\.lsn) == [1, 2])
        #expect(records.map(\.write.body) == [write(version: 1, bytes: large).body, write(version: 2, bytes: 300).body])
        #expect(recovered.notes.isEmpty, "\(recovered.notes)")

        // A segment left holds its records alone.
        try log.rotate()
        #expect(try length(of: path + "-log.1") == end)
        log.stopAppending()
        log.close(removing: true)
    }

    @Test func neitherASyncLogNorSmallRecordsMakeAHole() throws {
        let folder = TemporaryFolder("layoutd-pages-ahead")
        let (syncPath, syncLog) = try newLog(in: folder, syncsZerosAhead: true)
        defer { syncLog.stopAppending(); syncLog.close(removing: true) }
        // Its first segment's zeros ahead are synced, 1 MiB: the large record outruns them, and the
        // file ends where it does.
        let end = AppendOnlyLog.headerBytes + (try append(version: 1, bytes: large, to: syncLog))
        #expect(try length(of: syncPath + "-log.1") == end)

        let asyncFolder = TemporaryFolder("layoutd-pages-ahead")
        let (asyncPath, asyncLog) = try newLog(in: asyncFolder)
        defer { asyncLog.stopAppending(); asyncLog.close(removing: true) }
        var asyncEnd = AppendOnlyLog.headerBytes
        for version in 1...3 { asyncEnd += try append(version: version, bytes: AppendOnlyLog.largeRecordBytes - 100, to: asyncLog) }
        #expect(try length(of: asyncPath + "-log.1") == asyncEnd)
    }
}
