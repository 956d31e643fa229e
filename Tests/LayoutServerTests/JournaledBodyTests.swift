import LayoutTestKit
import Testing
@testable import LayoutJournal
@testable import LayoutServer

/// A large change's record checksum is computed while the change runs (`JournalChecksumAhead`); the log
/// writes it beside the record, and SQLite checks it when the layout is read back.
@Suite struct JournaledBodyTests {
    private let feed = JournalKey(namespace: "", name: "feed")

    @Test(arguments: [0, 1, 2])
    func aChecksumComputedAheadIsTheOneTheRecordHas(frames: Int) throws {
        let folder = TemporaryFolder("layoutd-ahead")
        let journal = try #require(try Journal.open(.sqlite(path: folder.file("j.db")), role: .daemon, durability: .async, syncMillis: 20, appendOnlyLog: true))
        defer { journal.close() }
        // Large enough to be checksummed ahead, in the body alone or spread over frames.
        let size = JournalChecksumAhead.minimumBytes + 100
        let attachments = (0..<frames).map { index in RequestBody((0..<size).map { UInt8(truncatingIfNeeded: $0 * 31 + index) }) }
        let text = #"{"op":"prepare","layout":"feed"}"# + String(repeating: " ", count: frames == 0 ? size : 0)
        let request = RequestBody(Array(text.utf8), attachments: attachments)
        let body = JournaledBody(request, logged: journal.writesALog)
        #expect(body.checksumAhead != nil, "a body this large is checksummed ahead when the journal has a log")
        #expect(JournaledBody(request, logged: false).checksumAhead == nil, "nothing takes it without a log")

        let outcome = try #require(journal.appendAtOnce(.rebuild(feed, version: 1, epoch: 0, items: 1, body: []), body: body))
        try outcome.get()
        // Read back from SQLite, which refuses a body whose checksum does not match.
        let recipe = try #require(try journal.recipe(for: feed))
        #expect(recipe.bodies == [body.joined()])
    }

    @Test func onlyAJournalWithALogWritesOne() throws {
        let folder = TemporaryFolder("layoutd-ahead")
        for logged in [true, false] {
            let journal = try #require(try Journal.open(.sqlite(path: folder.file("\(logged).db")), role: .daemon, durability: .async, syncMillis: 20, appendOnlyLog: logged))
            #expect(journal.writesALog == logged)
            journal.close()
        }
    }
}
