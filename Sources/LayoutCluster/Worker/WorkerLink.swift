import Dispatch
import Foundation
import LayoutServer
import LayoutWire
import Logging
import ZeroMQ

/// A cluster worker's one I/O thread: the DEALER to the broker (MDP worker side, with Paranoid Pirate
/// heartbeats and reconnects), the PUB that sends events into the broker's stream, and optionally a
/// stats ROUTER of its own. Requests go to the same worker pool, handler and store as the single
/// daemon's; replies and events come back through the mailbox.
///
/// Not Sendable: made, run and closed on one thread, like its sockets.
final class WorkerLink {
    let context: Context
    let cluster: ClusterConfiguration
    let configuration: ServerConfiguration
    var dealer: Socket?
    let publisher: Socket
    let statsSocket: StatsResponder?
    /// The direct endpoint for clients' reads (`cluster.direct`); nil without one.
    let directFront: DirectFront?
    /// Whether direct reads may be answered: extended by the broker's lease grants, revoked when the
    /// connection to it ends. Nil without a direct endpoint.
    let lease: ReadLease?
    /// Keys moving away (FENCE): their direct reads are answered `moved`. Nil without a direct endpoint.
    let fences: DirectReadFences?
    /// How the direct endpoint answered, for stats and heartbeats. Nil without a direct endpoint.
    let directCounters: DirectReadCounters?
    /// This connection's heartbeats, so that a grant counts from when the one it names was sent.
    var heartbeats = HeartbeatLedger()
    var directPending = false
    /// The pool's handler, to answer cheap direct reads on this thread (`admitDirect`); nil without a
    /// direct endpoint.
    let directJobs: ClusterJobHandler?
    /// Where a direct read the pool decodes is filed (a large body); nil without a direct endpoint.
    let directReads: JobDesk<DirectRead>?
    /// What deliveries made while answering a direct read here sent, for the loop to act on (a shutdown
    /// among them, events to flush) on its next pass.
    var deliveredWhileReceiving = (events: false, shutdown: false)
    let mailbox: Mailbox<WorkerMessage>
    let pool: WorkerPool<ClusterJobHandler>
    let store: LayoutStore
    let stats: ServerStats
    let brokerJobs: BrokerJobDesk
    /// With CURVE: this worker's key pair and the broker's public key.
    let curve: (keys: CurveKeyPair, broker: CurveKey)?
    let membership: WorkerMembership
    let health: DaemonHealth
    let logger: Logger
    let workerID: String
    var inbox: [WorkerMessage] = []

    let heartbeatNanos: Nanos
    let livenessNanos: Nanos
    let reconnectNanos: Nanos
    let reconnectMaxNanos: Nanos
    /// When the broker was last heard from.
    var lastHeard: Nanos = 0
    /// The epoch of the broker this conversation is with, from its HEARTBEATs (protocol 4; 0 before one).
    var brokerEpoch: UInt64 = 0
    /// Which of `cluster.joinEndpoints` the worker joins (or joins next).
    var joinIndex = 0
    var currentBroker: String {
        let brokers = cluster.joinEndpoints
        return brokers.isEmpty ? "" : brokers[joinIndex % brokers.count]
    }
    /// The wait before the next reconnect, doubling while reconnects fail.
    var backoff: Nanos
    /// When to connect again while disconnected.
    var reconnectAt: Nanos?
    /// DISCONNECTs received in a row, without any other command between them.
    var refusals = 0
    /// Whether the broker's XSUB has subscribed: until then an event would be dropped, so READY waits.
    var eventsSubscribed = false
    /// A connection made before `eventsSubscribed`, whose READY is still to be sent.
    var readyOwed = false
    var warnedAboutEvents = false
    var dealerPending = false
    var dealerDescriptor: Int32?
    /// The DEALER's monitor: a dropped connection starts a new conversation at once (see `connectionEvents`).
    var dealerMonitor: Socket?
    var monitorPending = false

    let statsEndpoint: String?
    /// The direct endpoint as clients reach it (READY advertises it); nil without one.
    let directEndpoint: String?

    init(
        context: Context, configuration: ServerConfiguration, cluster: ClusterConfiguration, mailbox: Mailbox<WorkerMessage>,
        pool: WorkerPool<ClusterJobHandler>, store: LayoutStore, stats: ServerStats, brokerJobs: BrokerJobDesk,
        curve: (keys: CurveKeyPair, broker: CurveKey)?, membership: WorkerMembership, health: DaemonHealth,
        direct: (reads: JobDesk<DirectRead>, lease: ReadLease, fences: DirectReadFences, counters: DirectReadCounters, access: AccessControl?)? = nil,
        jobs: ClusterJobHandler? = nil, logger: Logger
    ) throws {
        self.curve = curve
        self.membership = membership
        self.health = health
        self.context = context
        self.configuration = configuration
        self.cluster = cluster
        self.mailbox = mailbox
        self.pool = pool
        self.store = store
        self.stats = stats
        self.brokerJobs = brokerJobs
        self.logger = logger
        workerID = cluster.resolvedWorkerID
        heartbeatNanos = Nanos(cluster.heartbeatMilliseconds) * 1_000_000
        livenessNanos = heartbeatNanos * Nanos(cluster.liveness)
        reconnectNanos = Nanos(cluster.reconnectMilliseconds) * 1_000_000
        reconnectMaxNanos = Nanos(cluster.reconnectMaxMilliseconds) * 1_000_000
        backoff = reconnectNanos
        publisher = try Socket(.xpub, in: context)
        try publisher.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        if let curve { try publisher.makeCurveClient(keys: curve.keys, serverKey: curve.broker) }
        for endpoint in cluster.joinEventsEndpoints { try publisher.connect(endpoint) }
        if let endpoint = cluster.workerStatsEndpoint {
            let socket = try StatsResponder(context: context, endpoint: endpoint, sendHighWaterMark: configuration.sendHighWaterMark, access: nil)
            statsSocket = socket
            statsEndpoint = socket.endpoint
        } else {
            statsSocket = nil
            statsEndpoint = nil
        }
        if let endpoint = cluster.directEndpoint, let direct {
            let front = try DirectFront(
                context: context, endpoint: endpoint, configuration: configuration, access: direct.access, desk: direct.reads, lease: direct.lease, stats: stats,
                logger: logger
            )
            directFront = front
            directEndpoint = cluster.directAdvertiseEndpoint ?? AdvertisedEndpoint.forBound(front.boundEndpoint)
            lease = direct.lease
            fences = direct.fences
            directCounters = direct.counters
            directJobs = jobs
            directReads = direct.reads
        } else {
            directJobs = nil
            directReads = nil
            directFront = nil
            directEndpoint = nil
            lease = nil
            fences = nil
            directCounters = nil
        }
    }

    /// Serves until a shutdown: then tells the broker it leaves, answers what was admitted, and closes.
    func run() {
        connect()
        var drain = ShutdownDrain(graceSeconds: configuration.shutdownGraceSeconds)
        var nextHeartbeat = now() + heartbeatNanos
        var statsPending = statsSocket != nil
        let statsDescriptor = statsSocket?.fileDescriptor
        let publisherDescriptor = try? publisher.get(.fileDescriptor)
        var publisherPending = true
        while true {
            health.notePass()
            if publisherPending { publisherPending = receiveSubscriptions() }
            if dealerPending { dealerPending = receiveFromBroker(accepting: drain.isAccepting) }
            if monitorPending { monitorPending = connectionEvents(draining: !drain.isAccepting) }
            var delivered = deliverMailbox()
            delivered.events = delivered.events || deliveredWhileReceiving.events
            delivered.shutdown = delivered.shutdown || deliveredWhileReceiving.shutdown
            deliveredWhileReceiving = (false, false)
            if delivered.events { publisherPending = true }
            if delivered.shutdown, drain.begin(at: now()) {
                logger.info("worker shutting down: telling the broker, answering admitted requests")
                // Leaving: the broker moves this worker's keys at once, so its reads end here.
                lease?.revoke(at: now())
                sendToBroker([WorkerCommand.disconnect.frame])
            }
            if statsPending { statsPending = answerStats() }
            if directPending, let directFront {
                directPending = directFront.receive(accepting: drain.isAccepting) { envelope, body, read, first in
                    admitDirect(envelope: envelope, body: body, read: read, alone: first, at: directFront)
                }
            }
            let time = now()
            if !drain.isAccepting {
                if pool.isIdle {
                    // What the broker sent until now is answered (`busy`: not run), not left unread on a
                    // socket about to close, where the broker would answer it `unavailable` (outcome
                    // unknown) when it sees the connection drop.
                    while receiveFromBroker(accepting: false) {}
                    _ = deliverMailbox()
                    break
                }
                if drain.isOverGrace(at: time) {
                    logger.warning("shutdown grace period over with requests unanswered")
                    break
                }
            }
            if let reconnectAt, time >= reconnectAt {
                self.reconnectAt = nil
                connect()
            }
            if time >= nextHeartbeat {
                nextHeartbeat = time + heartbeatNanos
                if readyOwed, dealer != nil {
                    // MDP: nothing before READY, and READY waits for the event stream. A broker whose
                    // events-in endpoint cannot be reached keeps this worker here, saying so.
                    if time > lastHeard, time - lastHeard > livenessNanos, !warnedAboutEvents {
                        warnedAboutEvents = true
                        logger.warning("waiting for the broker's event stream before joining", metadata: ["events": "\(cluster.joinEventsEndpoints.joined(separator: ","))"])
                    }
                } else if dealer != nil {
                    if time > lastHeard, time - lastHeard > livenessNanos {
                        logger.warning("broker silent for \(cluster.liveness) heartbeats; reconnecting", metadata: ["backoffMillis": "\(backoff / 1_000_000)"])
                        disconnect(retryAfter: backoff)
                        backoff = min(backoff * 2, reconnectMaxNanos)
                    } else {
                        sendHeartbeat()
                    }
                }
            }
            let carried = deliveredWhileReceiving.events || deliveredWhileReceiving.shutdown
            let busy = dealerPending || statsPending || publisherPending || monitorPending || directPending || carried || !mailbox.prepareToBlock()
            var deadline = nextHeartbeat
            if let reconnectAt { deadline = min(deadline, reconnectAt) }
            let wait = drain.pollTimeout(busy: busy, serving: .nanoseconds(Int64(deadline > time ? deadline - time : 0)))
            var descriptors: [Int32] = [mailbox.wakeUp.fileDescriptor, publisherDescriptor ?? -1]
            if let statsDescriptor { descriptors.append(statsDescriptor) }
            let directIndex = descriptors.count
            if let directFront { descriptors.append(directFront.fileDescriptor) }
            let monitorDescriptor = try? dealerMonitor?.get(.fileDescriptor)
            descriptors.append(monitorDescriptor ?? -1)
            let monitorIndex = descriptors.count - 1
            if let dealerDescriptor { descriptors.append(dealerDescriptor) }
            var poll = DescriptorPoll(descriptors)
            guard let ready = try? poll.wait(timeout: wait) else { break }
            if ready.contains(0) { mailbox.wakeUp.drain() }
            if ready.contains(1) { publisherPending = true }
            if statsDescriptor != nil, ready.contains(2) { statsPending = true }
            if directFront != nil, ready.contains(directIndex) { directPending = true }
            if monitorDescriptor != nil, ready.contains(monitorIndex) { monitorPending = true }
            if dealerDescriptor != nil, ready.contains(descriptors.count - 1) { dealerPending = true }
        }
        close()
    }

    func now() -> Nanos {
        // The read lease's clock (it counts a suspension), which heartbeats' sending times feed.
        LeaseClock.now()
    }

    // MARK: Replies, events, stats

    func deliverMailbox() -> (replies: Bool, events: Bool, shutdown: Bool) {
        var delivered = (replies: false, events: false, shutdown: false)
        mailbox.takeAll(into: &inbox)
        defer { inbox.removeAll(keepingCapacity: true) }
        for message in inbox {
            switch message {
            case .reply(let reply):
                if let directFront, DirectEnvelope.isDirect(reply.envelope) {
                    directFront.send(envelope: reply.envelope, body: reply.body)
                    // A send may consume the socket's edge-triggered readiness (see `sendToBroker`).
                    directPending = true
                } else {
                    send(reply)
                }
                delivered.replies = true
            case .event(let namespace, let topic, let body):
                do {
                    // `[topic, body]`, and a third frame naming the namespace when there is one: the
                    // broker publishes it to that namespace's subscribers under their keys.
                    _ = try publisher.send(multipart: namespace.isEmpty ? [topic, body] : [topic, body, Array(namespace.utf8)], flags: .dontWait)
                    stats.recordEventPublished()
                    delivered.events = true
                } catch {
                    logger.warning("event publish failed", metadata: ["error": "\(error)"])
                }
            case .toBroker(let frames):
                // Not before READY: the broker would answer a stranger DISCONNECT. READY, sent later,
                // lists what the store keeps then, which is what an eviction before it would have said.
                if !readyOwed { sendToBroker(frames) }
            case .shutdown:
                delivered.shutdown = true
            }
        }
        if delivered.replies { dealerPending = dealer != nil }
        return delivered
    }

    /// REPLY `[empty, MDPW01, 0x03, token, empty, body]`; a large body leaves without a copy. Replies to
    /// an earlier conversation (before a reconnect) go to the new one, where the broker ignores their
    /// unknown tokens.
    func send(_ reply: OutgoingReply) {
        guard let dealer else { return }
        var token: [UInt8] = []
        _ = try? reply.envelope.forEachFrame { (frame) throws(ZeroMQError) -> Bool in
            token = Array(frame)
            return false
        }
        do {
            guard try dealer.send([], flags: [.dontWait, .sendMore]) else { return }
            try dealer.send(WorkerProtocol.header, flags: .sendMore)
            try dealer.send(WorkerCommand.reply.frame, flags: .sendMore)
            try dealer.send(token, flags: .sendMore)
            try dealer.send([], flags: .sendMore)
            _ = try reply.body.send(on: dealer, flags: [])
        } catch {
            logger.debug("reply not sent", metadata: ["error": "\(error)"])
        }
        dealerPending = true
    }

    private func close() {
        // Long enough for the last replies and events to leave for a broker that is there; short, so a
        // worker whose broker is gone does not wait a second for messages nobody will take.
        try? publisher.set(.linger, 200)
        try? dealer?.set(.linger, 200)
        try? dealer?.stopMonitoring()
        dealerMonitor?.close()
        dealer?.close()
        publisher.close()
        statsSocket?.close()
        directFront?.close()
    }
}
