import Foundation
import Synchronization
import LayoutJournal
import LayoutServer
import LayoutWire
import Logging
import ZeroMQ

/// A standby broker's front (the ZeroMQ guide's Binary Star): while another broker holds the lease, it
/// answers every request `unavailable`, saying it is a standby, so clients move to the next endpoint at
/// once instead of waiting out a timeout; it takes the lease once the active broker lets it lapse.
///
/// Not Sendable: made, run and closed on one thread, like its socket.
final class StandbyFront {
    let front: FrontSocket
    private let lease: BrokerLease
    private let mailbox: Mailbox<BrokerSignal>
    private let logger: Logger
    /// Its loop's passes keep `/healthz` answering 200 (a standby is alive); `/readyz` stays 503.
    private let health: DaemonHealth
    /// The endpoint bound (a `:*` port resolved): the active broker binds it again.
    var endpoint: String { front.endpoint }

    /// Binds the front as the active broker's will be (the socket is handed over, not bound twice: a
    /// port closed and bound again at once may still be taken, and requests waiting in it would be lost).
    init(
        context: Context, configuration: ServerConfiguration, access: AccessControl?, lease: BrokerLease, mailbox: Mailbox<BrokerSignal>,
        health: DaemonHealth, stats: ServerStats, logger: Logger
    ) throws {
        front = try BrokerLoop.makeFront(context: context, configuration: configuration, access: access, stats: stats, logger: logger)
        self.lease = lease
        self.mailbox = mailbox
        self.health = health
        self.logger = logger
    }

    /// Answers as a standby until the lease is ours (its epoch; then `front` is the active broker's) or a
    /// shutdown is asked for (nil).
    func serveUntilLeased() -> UInt64? {
        // Tried at a fifth of the lease, so a lapsed lease is taken within about its length plus this.
        let tryEvery = Duration.milliseconds(max(20, lease.ttlMillis / 5))
        var nextTry = ContinuousClock.now
        var holder: String?
        var announced = false
        var signals: [BrokerSignal] = []
        var poll = DescriptorPoll([front.fileDescriptor, mailbox.wakeUp.fileDescriptor])
        var frontPending = true
        while true {
            health.notePass()
            mailbox.takeAll(into: &signals)
            for signal in signals {
                switch signal {
                case .shutdown: return nil
                case .metrics(let ask): ask.fulfil(Array("# a standby broker: no metrics until it is active\n".utf8))
                case .journaled: break
                }
            }
            signals.removeAll(keepingCapacity: true)
            if ContinuousClock.now >= nextTry {
                do {
                    if let epoch = try lease.acquire() { return epoch }
                } catch {
                    logger.warning("standby: cannot reach the lease", metadata: ["error": "\(error.message)"])
                }
                holder = lease.currentHolder() ?? holder
                if !announced {
                    announced = true
                    logger.notice("standby: another broker holds the lease", metadata: ["holder": "\(holder ?? "unknown")"])
                }
                nextTry = ContinuousClock.now + tryEvery
            }
            if frontPending { frontPending = answerWaiting(holder: holder) }
            if front.takeSentSinceLook() { frontPending = true }
            let untilTry = nextTry - ContinuousClock.now
            let busy = frontPending || !mailbox.prepareToBlock()
            guard let ready = try? poll.wait(timeout: busy ? .zero : max(.zero, untilTry)) else { continue }
            if ready.contains(0) { frontPending = true }
            if ready.contains(1) { mailbox.wakeUp.drain() }
        }
    }

    /// Answers the requests waiting, as a standby: `unavailable`, so that clients move to the next front
    /// endpoint at once. True when it stopped at its bound.
    private func answerWaiting(holder: String?) -> Bool {
        front.receive(accepting: true) { arrived, _ in
            let error = WireError(.unavailable, "this broker is a standby; the active broker is \(holder ?? "being chosen"): try the next front endpoint")
            front.send(envelope: arrived.envelope, bytes: FrontReplies.failure(for: arrived.body, error: error))
        }
    }
}

/// Renews the active broker's lease on a thread of its own; when it cannot (another broker took it, or
/// the database did not answer for the lease's length), the broker stops: a broker without its lease
/// must not acknowledge anything (its journal writes are refused anyway: they are fenced by the epoch).
final class LeaseKeeper: Sendable {
    private let stopped = Atomic<Bool>(false)
    /// Used by the keeper's thread and by `stop`, one at a time.
    private let lease: Mutex<BrokerLease>
    private let epoch: UInt64

    init(lease: BrokerLease, epoch: UInt64, logger: Logger, onLost: @escaping @Sendable () -> Void) {
        let ttlMillis = lease.ttlMillis
        self.lease = Mutex(lease)
        self.epoch = epoch
        let thread = Thread { [self] in
            var lastRenewed = ContinuousClock.now
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: Double(ttlMillis) / 3 / 1000)
                if stopped.load(ordering: .relaxed) { return }
                let renewed = self.lease.withLock { box -> Result<Bool, JournalError> in
                    do throws(JournalError) { return .success(try box.renew(epoch: epoch)) } catch { return .failure(error) }
                }
                switch renewed {
                case .success(true):
                    lastRenewed = .now
                case .success(false):
                    logger.error("the broker lease was taken by another broker; stopping", metadata: ["epoch": "\(epoch)"])
                    onLost()
                    return
                case .failure(let error):
                    if ContinuousClock.now - lastRenewed > .milliseconds(ttlMillis) {
                        logger.error("the broker lease could not be renewed in time; stopping", metadata: ["error": "\(error.message)"])
                        onLost()
                        return
                    }
                }
            }
        }
        thread.name = "layoutd-lease"
        thread.start()
    }

    /// Stops renewing and lets the lease go, so a standby takes over at once.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        lease.withLock { $0.release(epoch: epoch) }
    }
}
