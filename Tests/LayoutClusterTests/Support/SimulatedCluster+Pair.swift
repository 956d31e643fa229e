import Foundation
import LayoutServer
import LayoutWire
@testable import LayoutCluster

/// What a broker of a pair needs beyond a single broker (`SimulatedBrokerPair`): workers that move
/// between brokers, and replies that wait for a fenced journal.
extension SimulatedCluster {
    /// A worker process that was connected to another broker joins this one, with what it keeps.
    @discardableResult
    func join(moving worker: SimulatedWorker) -> SimulatedWorker {
        workers[worker.name] = worker
        return join(worker.name)
    }

    /// The worker went to another broker while this one still believes it connected (a one-way
    /// partition, or this broker paused): a stand-in takes its place here, cut off for good, so orders
    /// wait and nothing is heard from it until this broker judges it dead.
    func lose(_ name: String) {
        guard let worker = workers[name] else { return }
        let ghost = SimulatedWorker(name: name, routingID: worker.routingID, storeBytes: 1)
        ghost.cutOff = CutLink(held: nil)
        ghost.connected = worker.connected && core.byRoutingID[worker.routingID]?.isConnected == true
        workers[name] = ghost
    }

    /// Forgets the worker `name` (gone from this broker for good).
    func forget(_ name: String) {
        guard let worker = workers.removeValue(forKey: name) else { return }
        clearQueue(worker.routingID)
    }

    /// As `BrokerLoop` tells it: the journal commits at once here, so a key's record is current unless a
    /// write of it was refused.
    func journalStanding(of key: LayoutKey) -> JournalStanding {
        journalMissed.contains(key) ? .missed : .current
    }

    /// As `BrokerLoop` releases it: a reply after a refused write answers `unavailable` (the change is on
    /// its worker, not durable).
    func replyWhenJournaled(to envelope: Envelope, body: HeldBody, trailing: [HeldBody], id: RequestID?) {
        guard journalRefused else {
            reply(to: envelope, body: body, trailing: trailing)
            return
        }
        journalRefused = false
        let error = WireError(.unavailable, "the change was made on its worker but the broker's journal could not keep it (fenced), so it is not acknowledged")
        reply(to: envelope, bytes: ReplyEncoder.failure(id: id, error: error))
    }

}
