import Foundation
import LayoutTestKit
import Synchronization
import Testing
@testable import LayoutJournal

/// Replaying a log a crash left: a transaction a segment, so that memory holds one segment at a time,
/// and a replay cut short goes on at the next start from where the storage's position is.
@Suite struct LogReplayTests {
    /// A storage that keeps the batches it is given, and fails the one numbered `failing` (from 0).
    private final class RecordingStorage: LoggedJournalStorage {
        var batches: [[UInt64]] = []
        var position: UInt64
        var failing: Int?
        var durableCalls = 0

        init(position: UInt64 = 0, failing: Int? = nil) {
            (self.position, self.failing) = (position, failing)
        }

        func write(logged batch: [LoggedWrite]) throws(JournalError) {
            if batches.count == failing {
                failing = nil
                throw JournalError(.writeFailed, "a stand-in failure")
            }
            batches.append(batch.map(\.lsn))
            position = batch.last?.lsn ?? position
        }

        func logPosition() throws(JournalError) -> UInt64 { position }
        func loadKeys() throws(JournalError) -> [JournalKeyState] { [] }
        func keyState(for key: JournalKey) throws(JournalError) -> JournalKeyState? { nil }
        func write(_ batch: [JournalWrite], atMillis: Int64) throws(JournalError) {}
        func recipe(for key: JournalKey) throws(JournalError) -> JournalRecipe? { nil }
        func makeDurable() throws(JournalError) { durableCalls += 1 }
        func byteCount() -> Int { 0 }
        func probe() throws(JournalError) {}
    }

    /// A log of `segments` segments of `perSegment` changes each (lsns from 1), left as a crash leaves it.
    private func crashedLog(at path: String, segments: Int, perSegment: Int) throws {
        let log = try AppendOnlyLog(path: path, role: .daemon, after: 0, nextLSN: 1, syncsZerosAhead: false)
        let key = JournalKey(namespace: "", name: "feed")
        for segment in 0..<segments {
            for index in 0..<perSegment {
                let version = segment * perSegment + index + 2
                try log.append(.change(key, version: version, items: 1, body: Array("change \(version)".utf8)), source: nil, atMillis: 0) { _ in }
            }
            try log.rotate()
        }
        log.close(removing: false)
    }

    @Test func aLogIsReplayedASegmentATransactionInOrder() throws {
        let folder = TemporaryFolder("layoutd-replay")
        let path = folder.file("j.db")
        try crashedLog(at: path, segments: 4, perSegment: 5)
        // The storage has the first segment and two records of the second already.
        let storage = RecordingStorage(position: 7)
        let (_, last, notes) = try Journal.replay(at: path, role: .daemon, into: storage)
        #expect(storage.batches == [[8, 9, 10], [11, 12, 13, 14, 15], [16, 17, 18, 19, 20]])
        #expect(last == 20 && storage.durableCalls == 1)
        #expect(notes.contains { $0.contains("13 changes replayed") }, "\(notes)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("-log.") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test(arguments: ["NOTALOG!\u{1}", "LDJLOG1\u{0}\u{2}"])
    func aForeignOrOtherRoleSegmentIsRefusedBeforeAnythingIsReplayed(header: String) throws {
        let folder = TemporaryFolder("layoutd-replay")
        let path = folder.file("j.db")
        try crashedLog(at: path, segments: 3, perSegment: 3)
        // Among the log's own segments: another program's file, or a broker's segment.
        let foreign = Array(header.utf8) + [UInt8](repeating: 0, count: 64)
        try Data(foreign).write(to: URL(fileURLWithPath: path + "-log.2"))
        let storage = RecordingStorage()
        #expect { _ = try Journal.replay(at: path, role: .daemon, into: storage) } throws: { ($0 as? JournalError)?.code == .incompatible }
        #expect(storage.batches.isEmpty && storage.durableCalls == 0)
    }

    @Test func aReplayCutShortGoesOnAtTheNextStartFromTheStoragesPosition() throws {
        let folder = TemporaryFolder("layoutd-replay")
        let path = folder.file("j.db")
        try crashedLog(at: path, segments: 3, perSegment: 4)
        let storage = RecordingStorage(failing: 1)
        #expect(throws: JournalError.self) { _ = try Journal.replay(at: path, role: .daemon, into: storage) }
        // The first segment's transaction is in; the log is all still there.
        #expect(storage.batches == [[1, 2, 3, 4]] && storage.position == 4)
        let (_, last, _) = try Journal.replay(at: path, role: .daemon, into: storage)
        #expect(storage.batches == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]] && last == 12)
    }
}
