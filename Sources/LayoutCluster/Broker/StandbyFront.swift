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
    let front: Socket
    private let lease: BrokerLease
    private let mailbox: Mailbox<BrokerSignal>
    private let logger: Logger
    /// Its loop's passes keep `/healthz` answering 200 (a standby is alive); `/readyz` stays 503.
    private let health: DaemonHealth
    /// The endpoint bound (a `:*` port resolved): the active broker binds it again.
    let endpoint: String

    /// Binds the front as the active broker's will be (the socket is handed over, not bound twice: a
    /// port closed and bound again at once may still be taken, and requests waiting in it would be lost).
    init(context: Context, configuration: ServerConfiguration, access: AccessControl?, lease: BrokerLease, mailbox: Mailbox<BrokerSignal>, health: DaemonHealth, logger: Logger) throws {
        front = try Socket(.router, in: context)
        try BrokerLoop.configureFront(front, configuration: configuration, access: access)
        try front.bind(configuration.frontEndpoint)
        self.endpoint = try front.lastEndpoint
        self.lease = lease
        self.mailbox = mailbox
        self.health = health
        self.logger = logger
    }

    /// Answers as a standby until the lease is ours (its epoch, and when the statement that took it was
    /// sent, on `LeaseClock`, which the lease counts from; then `front` is the active broker's) or a
    /// shutdown is asked for (nil).
    func serveUntilLeased() -> (epoch: UInt64, sentAt: UInt64)? {
        // Tried at a fifth of the lease, so a lapsed lease is taken within about its length plus this.
        let tryEvery = Duration.milliseconds(max(20, lease.ttlMillis / 5))
        var nextTry = ContinuousClock.now
        var holder: String?
        var announced = false
        var signals: [BrokerSignal] = []
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
                    let sentAt = LeaseClock.now()
                    if let epoch = try lease.acquire() { return (epoch, sentAt) }
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
            answerWaiting(holder: holder, for: .milliseconds(20))
        }
    }

    /// Answers the requests that arrive within `wait`.
    private func answerWaiting(holder: String?, for wait: Duration) {
        let deadline = ContinuousClock.now + wait
        try? front.set(.receiveTimeout, 20)
        while ContinuousClock.now < deadline {
            guard let frames = try? front.receiveMultipart(), frames.count >= 2, let body = frames.last else { continue }
            let id = body.withUnsafeBytes { RequestDecoder.requestID(in: $0) }
            let error = WireError(.unavailable, "this broker is a standby; the active broker is \(holder ?? "being chosen"): try the next front endpoint")
            _ = try? front.send(multipart: Array(frames.dropLast()) + [ReplyEncoder.failure(id: id, error: error)], flags: .dontWait)
        }
    }
}
