import LayoutServer
import LayoutWire

/// What the broker asks its I/O loop to send a worker.
enum WorkerOrder {
    /// A client's request, with its caller's frame when the broker has CURVE.
    case request(RequestToken, HeldBody, caller: Caller?)
    case restore(RequestToken, RestoreHeader, [HeldBody])
    case release([LayoutKey])
    case snapshot(RequestToken, SnapshotRequest)
    /// To a worker with a direct endpoint: stop answering direct reads of a key that moves away.
    case fence(RequestToken, FenceRequest)
    case heartbeat
    case disconnect
}

/// The broker's sockets, as the routing logic sees them.
protocol BrokerOutput: AnyObject {
    /// Sends `body` to the client behind `envelope`, and `trailing` after it (a binary reply's columns).
    func reply(to envelope: Envelope, body: HeldBody, trailing: [HeldBody])
    /// Sends a reply the broker wrote itself.
    func reply(to envelope: Envelope, bytes: [UInt8])
    /// Sends `order` to the worker connected with `routingID`; false when that connection is gone.
    func send(_ order: WorkerOrder, to routingID: [UInt8]) -> Bool
    /// Publishes an event the broker makes itself (`invalidated` with reason `lost`) about a layout of
    /// `namespace`, to that namespace's subscribers.
    func publish(_ event: WireEvent, namespace: String)
    /// Records a change to a recipe in the broker's journal (under the broker's `epoch`), in order.
    func journal(_ change: RecipeBook.Change, epoch: UInt64)
    /// Records in the broker's journal that `key` reached `epoch` (`JournalWrite.epoch`), in order with
    /// the changes.
    func journalEpoch(of key: LayoutKey, epoch: UInt64)
    /// Sends a reply that acknowledges a change once the journal writes asked for before it are
    /// committed; `unavailable` instead if one of them failed.
    func replyWhenJournaled(to envelope: Envelope, body: HeldBody, trailing: [HeldBody], id: RequestID?)
    /// How the journal's record of `key` stands, for a change to it acknowledged with no write of its own
    /// (a key kept without a recipe).
    func journalStanding(of key: LayoutKey) -> JournalStanding
}

/// How a broker's journal record of a key stands against what the broker holds of it.
enum JournalStanding: Equatable {
    /// Every write of the key was committed, or there is no journal.
    case current
    /// Writes asked for are not committed yet, and one of them may be the key's: a reply that relies on
    /// them waits for them.
    case unsettled
    /// A write of the key failed: its record may still hold a recipe the broker has since removed (an
    /// eviction, an unprotect), from which a restart or a takeover would rebuild an older version.
    case missed
}

extension BrokerOutput {
    /// Without a journal, nothing to record.
    func journal(_ change: RecipeBook.Change, epoch: UInt64) {}

    func journalEpoch(of key: LayoutKey, epoch: UInt64) {}

    /// Without a journal, nothing to fall behind.
    func journalStanding(of key: LayoutKey) -> JournalStanding { .current }

    /// Without a journal, nothing to wait for.
    func replyWhenJournaled(to envelope: Envelope, body: HeldBody, trailing: [HeldBody], id: RequestID?) {
        reply(to: envelope, body: body, trailing: trailing)
    }
}
