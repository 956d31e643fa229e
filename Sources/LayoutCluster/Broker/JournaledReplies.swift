import LayoutServer
import LayoutWire

/// Replies that acknowledge changes, held until the broker's journal has committed every write asked for
/// before them (docs/DURABILITY.md): the journal commits in the order it is asked, so a reply leaves once
/// the writes numbered up to its own are committed, in the order the replies were made.
///
/// Why a type of its own: the numbering and the release rule are the broker's durability promise, and
/// are tested here apart from the loop that moves bytes.
struct JournaledReplies {
    /// A reply waiting for the writes numbered up to `after`.
    struct Waiting {
        var after: Int
        var envelope: Envelope
        var body: HeldBody
        var trailing: [HeldBody]
        var id: RequestID?
    }

    /// Journal writes asked for, and committed.
    private(set) var asked = 0
    private var committed = 0
    /// Writes that failed, by number, until the replies waiting on them have left.
    private var failures: [Int: String] = [:]
    private var waiting = FIFO<Waiting>()
    /// The writes the replies released so far waited for.
    private var released = 0

    /// Whether no reply is waiting.
    var isEmpty: Bool { waiting.isEmpty }

    /// Whether every write asked for is committed (or failed).
    var isSettled: Bool { committed >= asked }

    /// Numbers a new write; its number.
    mutating func askWrite() -> Int {
        asked += 1
        return asked
    }

    /// Holds a reply until every write asked for so far is committed.
    mutating func hold(envelope: Envelope, body: HeldBody, trailing: [HeldBody], id: RequestID?) {
        waiting.append(Waiting(after: asked, envelope: envelope, body: body, trailing: trailing, id: id))
    }

    /// The journal committed (or failed, saying why) the write numbered `sequence`.
    mutating func noteCommitted(_ sequence: Int, failure: String?) {
        committed = max(committed, sequence)
        if let failure { failures[sequence] = failure }
    }

    /// The next reply whose writes are all committed, in order, with the failure of one of them if one
    /// failed (the reply must then not acknowledge); nil when none is ready.
    mutating func nextReleased() -> (Waiting, failure: String?)? {
        guard let first = waiting.all.first, first.after <= committed, let reply = waiting.popFirst() else { return nil }
        let failure = failures.first { $0.key > released && $0.key <= reply.after }?.value
        released = reply.after
        failures = failures.filter { $0.key > released }
        return (reply, failure)
    }
}
