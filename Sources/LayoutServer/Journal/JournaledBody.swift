import LayoutJournal

/// A change's request body as the journal keeps it: the message and frames it came in, and for a
/// large one its record's checksum, computed on another thread while the change runs
/// (`JournalChecksumAhead`).
struct JournaledBody: JournalBodySource {
    let request: RequestBody
    private let ahead: JournalChecksumAhead?

    /// - Parameter logged: whether the journal writes a log (`Journal.writesALog`), the one thing that
    ///   takes the checksum on the reply path.
    init(_ request: RequestBody, logged: Bool) {
        self.request = request
        ahead = logged && request.totalCount >= JournalChecksumAhead.minimumBytes ? JournalChecksumAhead(of: request) : nil
    }

    var totalCount: Int { request.totalCount }

    func withJournalParts<Result>(_ body: ([UnsafeRawBufferPointer]) -> Result) -> Result {
        request.withEveryPart(body)
    }

    var checksumAhead: UInt64? { ahead?.value }
}
