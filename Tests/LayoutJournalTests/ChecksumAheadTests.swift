import Foundation
import LayoutTestKit
import Testing
@testable import LayoutJournal

/// The log writes the checksum a body's source computed ahead (`JournalChecksumAhead`) instead of
/// computing it again on the reply path.
@Suite struct ChecksumAheadTests {
    private struct Ahead: JournalBodySource {
        let bytes: [UInt8]
        let checksumAhead: UInt64?

        func withJournalParts<Result>(_ body: ([UnsafeRawBufferPointer]) -> Result) -> Result {
            bytes.withUnsafeBytes { body([$0]) }
        }
    }

    @Test func theLogWritesTheChecksumComputedAhead() throws {
        let folder = TemporaryFolder("layoutd-ahead")
        let path = folder.file("j.db")
        let log = try AppendOnlyLog(path: path, role: .daemon, after: 0, nextLSN: 1, syncsZerosAhead: false)
        let key = JournalKey(namespace: "", name: "feed")
        let bytes = Array("a body".utf8)
        let ahead = JournalChecksumAhead(of: Ahead(bytes: bytes, checksumAhead: nil))
        try log.append(.rebuild(key, version: 1, epoch: 0, items: 1, body: []), source: Ahead(bytes: bytes, checksumAhead: ahead.value), atMillis: 0) { _ in }
        // A source that says another checksum has its record read back with that one: the log took it.
        try log.append(.change(key, version: 2, items: 1, body: []), source: Ahead(bytes: bytes, checksumAhead: 42), atMillis: 0) { _ in }
        log.close(removing: false)
        var records: [LoggedWrite] = []
        _ = try AppendOnlyLog.recover(path: path, role: .daemon) { records += $0 }
        #expect(records.map(\.checksum) == [Checksum.of(bytes), 42])
    }
}
