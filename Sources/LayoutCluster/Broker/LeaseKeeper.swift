import Foundation
import LayoutJournal
import Logging
import Synchronization

/// Renews the active broker's lease on a thread of its own, from the moment the lease is taken (recipes
/// may still be loading), and keeps the broker's `ServingWindow` at the end the last renewal allows:
/// counted from when that renewal was *sent*. Each renewal may take a quarter of the lease
/// (`BrokerLease.renewalTimeoutMillis`); one that fails is tried again at once, while the window holds.
/// When the lease is taken by another broker, or the window ends with no renewal through, the broker
/// stops (`onLost`): it has stopped acting already, since the loop consults the window itself.
final class LeaseKeeper: Sendable {
    private let stopped = Atomic<Bool>(false)
    /// Used by the keeper's thread and by `stop`, one at a time.
    private let lease: Mutex<BrokerLease>
    private let epoch: UInt64
    let window: ServingWindow

    /// Keeps the lease taken at `epoch` by a statement sent at `sentAt` (`LeaseClock`).
    init(lease: BrokerLease, epoch: UInt64, sentAt: UInt64, logger: Logger, onLost: @escaping @Sendable () -> Void) {
        let ttlMillis = lease.ttlMillis
        window = ServingWindow(endingAt: ServingWindow.end(sentAt: sentAt, leaseMillis: ttlMillis))
        self.lease = Mutex(lease)
        self.epoch = epoch
        let renewEvery = UInt64(ttlMillis) * 1_000_000 / 3
        // After a failure: soon, but not in a tight loop against a database refusing connections.
        let retryAfter = UInt64(max(1, ttlMillis / 20)) * 1_000_000
        let thread = Thread { [self, window] in
            var nextAttempt = sentAt + renewEvery
            var failures = 0
            while !stopped.load(ordering: .relaxed) {
                let now = LeaseClock.now()
                if now < nextAttempt {
                    // In slices, so that `stop` is not kept waiting for a whole interval.
                    Thread.sleep(forTimeInterval: Double(min(nextAttempt - now, 50_000_000)) / 1e9)
                    continue
                }
                guard window.isOpen else {
                    logger.error("the broker lease could not be renewed in time; stopping", metadata: ["epoch": "\(epoch)", "failedRenewals": "\(failures)"])
                    onLost()
                    return
                }
                let sent = LeaseClock.now()
                let renewed = self.lease.withLock { box -> Result<Bool, JournalError> in
                    do throws(JournalError) { return .success(try box.renew(epoch: epoch)) } catch { return .failure(error) }
                }
                switch renewed {
                case .success(true):
                    window.renewed(sentAt: sent, leaseMillis: ttlMillis)
                    failures = 0
                    nextAttempt = sent + renewEvery
                case .success(false):
                    window.close()
                    logger.error("the broker lease was taken by another broker; stopping", metadata: ["epoch": "\(epoch)"])
                    onLost()
                    return
                case .failure(let error):
                    failures += 1
                    if failures == 1 {
                        logger.warning("the broker lease was not renewed; trying again", metadata: ["error": "\(error.message)"])
                    }
                    nextAttempt = LeaseClock.now() + retryAfter
                }
            }
        }
        thread.name = "layoutd-lease"
        thread.start()
    }

    /// Stops renewing and lets the lease go, so a standby takes over at once. The window closes first:
    /// nothing is answered once the lease may be another broker's.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        window.close()
        lease.withLock { $0.release(epoch: epoch) }
    }
}
