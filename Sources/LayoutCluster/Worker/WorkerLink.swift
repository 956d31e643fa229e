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
    private let context: Context
    private let cluster: ClusterConfiguration
    private let configuration: ServerConfiguration
    private var dealer: Socket?
    private let publisher: Socket
    private let statsSocket: Socket?
    /// The direct endpoint for clients' reads (`cluster.direct`); nil without one.
    private let directFront: DirectFront?
    /// Whether direct reads may be answered: extended by the broker's lease grants, revoked when the
    /// connection to it ends. Nil without a direct endpoint.
    private let lease: ReadLease?
    /// Keys moving away (FENCE): their direct reads are answered `moved`. Nil without a direct endpoint.
    private let fences: DirectReadFences?
    /// How the direct endpoint answered, for stats and heartbeats. Nil without a direct endpoint.
    private let directCounters: DirectReadCounters?
    /// This connection's heartbeats, so that a grant counts from when the one it names was sent.
    private var heartbeats = HeartbeatLedger()
    private var directPending = false
    /// The pool's handler, to answer cheap direct reads on this thread (`admitDirect`); nil without a
    /// direct endpoint.
    private let directJobs: ClusterJobHandler?
    /// Where a direct read the pool decodes is filed (a large body); nil without a direct endpoint.
    private let directReads: JobDesk<DirectRead>?
    /// What deliveries made while answering a direct read here sent, for the loop to act on (a shutdown
    /// among them, events to flush) on its next pass.
    private var deliveredWhileReceiving = (events: false, shutdown: false)
    private let mailbox: Mailbox<IOMessage>
    private let pool: WorkerPool<ClusterJobHandler>
    private let store: LayoutStore
    private let stats: ServerStats
    private let brokerJobs: BrokerJobDesk
    /// With CURVE: this worker's key pair and the broker's public key.
    private let curve: (keys: CurveKeyPair, broker: CurveKey)?
    private let membership: WorkerMembership
    private let health: DaemonHealth
    private let logger: Logger
    private let workerID: String
    private var inbox: [IOMessage] = []

    private let heartbeatNanos: Nanos
    private let livenessNanos: Nanos
    private let reconnectNanos: Nanos
    private let reconnectMaxNanos: Nanos
    /// When the broker was last heard from.
    private var lastHeard: Nanos = 0
    /// The epoch of the broker this conversation is with, from its HEARTBEATs (protocol 4; 0 before one).
    private var brokerEpoch: UInt64 = 0
    /// Which of `cluster.joinEndpoints` the worker joins (or joins next).
    private var joinIndex = 0
    private var currentBroker: String {
        let brokers = cluster.joinEndpoints
        return brokers.isEmpty ? "" : brokers[joinIndex % brokers.count]
    }
    /// The wait before the next reconnect, doubling while reconnects fail.
    private var backoff: Nanos
    /// When to connect again while disconnected.
    private var reconnectAt: Nanos?
    /// DISCONNECTs received in a row, without any other command between them.
    private var refusals = 0
    /// Whether the broker's XSUB has subscribed: until then an event would be dropped, so READY waits.
    private var eventsSubscribed = false
    /// A connection made before `eventsSubscribed`, whose READY is still to be sent.
    private var readyOwed = false
    private var warnedAboutEvents = false
    private var dealerPending = false
    private var dealerDescriptor: Int32?
    /// The DEALER's monitor: a dropped connection starts a new conversation at once (see `connectionEvents`).
    private var dealerMonitor: Socket?
    private var monitorPending = false

    let statsEndpoint: String?
    /// The direct endpoint as clients reach it (READY advertises it); nil without one.
    let directEndpoint: String?

    init(
        context: Context, configuration: ServerConfiguration, cluster: ClusterConfiguration, mailbox: Mailbox<IOMessage>,
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
            let socket = try Socket(.router, in: context)
            try socket.set(.maxMessageSize, 64 * 1024)
            try socket.bind(endpoint)
            statsSocket = socket
            statsEndpoint = try socket.lastEndpoint
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
        var draining: Nanos?
        var nextHeartbeat = now() + heartbeatNanos
        var statsPending = statsSocket != nil
        let statsDescriptor = try? statsSocket?.get(.fileDescriptor)
        let publisherDescriptor = try? publisher.get(.fileDescriptor)
        var publisherPending = true
        while true {
            health.notePass()
            if publisherPending { publisherPending = receiveSubscriptions() }
            if dealerPending { dealerPending = receiveFromBroker(accepting: draining == nil) }
            if monitorPending { monitorPending = connectionEvents(draining: draining != nil) }
            var delivered = deliverMailbox()
            delivered.events = delivered.events || deliveredWhileReceiving.events
            delivered.shutdown = delivered.shutdown || deliveredWhileReceiving.shutdown
            deliveredWhileReceiving = (false, false)
            if delivered.events { publisherPending = true }
            if delivered.shutdown, draining == nil {
                draining = now()
                logger.info("worker shutting down: telling the broker, answering admitted requests")
                // Leaving: the broker moves this worker's keys at once, so its reads end here.
                lease?.revoke(at: now())
                sendToBroker([WorkerCommand.disconnect.frame])
            }
            if statsPending { statsPending = answerStats() }
            if directPending, let directFront {
                directPending = directFront.receive(accepting: draining == nil) { envelope, body, read, first in
                    admitDirect(envelope: envelope, body: body, read: read, alone: first, at: directFront)
                }
            }
            let time = now()
            if let since = draining {
                if pool.isIdle {
                    // What the broker sent until now is answered (`busy`: not run), not left unread on a
                    // socket about to close, where the broker would answer it `unavailable` (outcome
                    // unknown) when it sees the connection drop.
                    while receiveFromBroker(accepting: false) {}
                    _ = deliverMailbox()
                    break
                }
                if time > since, time - since > Nanos(configuration.shutdownGraceSeconds * 1e9) {
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
            let wait: Duration = busy ? .zero : draining != nil ? .milliseconds(20) : .nanoseconds(Int64(deadline > time ? deadline - time : 0))
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

    private func now() -> Nanos {
        // The read lease's clock (it counts a suspension), which heartbeats' sending times feed.
        LeaseClock.now()
    }

    // MARK: The broker connection

    /// A new DEALER to the broker and READY with the layouts this worker keeps (MDP: a fresh socket
    /// for every conversation, so nothing queued for the old one is delivered on the new).
    private func connect() {
        let broker = currentBroker
        do {
            let socket = try Socket(.dealer, in: context)
            try socket.set(.sendHighWaterMark, 0)
            try socket.set(.receiveHighWaterMark, 0)
            if let curve { try socket.makeCurveClient(keys: curve.keys, serverKey: curve.broker) }
            let monitorEndpoint = "inproc://layoutd-worker-\(UInt64.random(in: 0 ... .max))-monitor"
            try socket.monitor(monitorEndpoint, events: [.disconnected])
            let monitor = try Socket(.pair, in: context)
            try monitor.connect(monitorEndpoint)
            dealerMonitor = monitor
            monitorPending = true
            try socket.connect(broker)
            dealer = socket
            dealerDescriptor = try socket.get(.fileDescriptor)
            dealerPending = true
            lastHeard = now()
            readyOwed = true
            sendReadyIfSubscribed()
        } catch {
            logger.error("cannot connect to the broker", metadata: ["error": "\(error)"])
            disconnect(retryAfter: backoff)
        }
    }

    /// READY, once the broker's event stream listens to this worker.
    private func sendReadyIfSubscribed() {
        guard readyOwed, eventsSubscribed, dealer != nil else { return }
        readyOwed = false
        lastHeard = now()
        membership.noteReadySent(at: lastHeard)
        let usage = pool.usage
        let keys = store.summaries().map { ReadyInfo.KeyVersion(key: $0.key, version: $0.version, epoch: $0.epoch) }
        // A new conversation: until its broker's first HEARTBEAT, nothing is stamped.
        brokerEpoch = 0
        var ready = ReadyInfo(workerID: workerID, credit: usage.threads + configuration.queueCapacity, threads: usage.threads, keys: keys)
        ready.directEndpoint = directEndpoint
        sendToBroker([WorkerCommand.ready.frame, Array(WorkerProtocol.serviceName.utf8), ready.frame])
        // A numbered heartbeat at once, so that the first read lease is granted now, not a heartbeat later.
        if lease != nil { sendHeartbeat() }
        logger.info("worker joining", metadata: ["broker": "\(currentBroker)", "worker": "\(workerID)", "keys": "\(keys.count)"])
    }

    /// Subscription messages on the event XPUB (`0x01 prefix` / `0x00 prefix`): the broker's XSUB
    /// subscribes to everything when the connection is made. True when it stopped at its bound.
    private func receiveSubscriptions() -> Bool {
        for _ in 0..<64 {
            guard let frame = try? publisher.receiveBytes(flags: .dontWait) else { return false }
            if frame.first == 1 {
                eventsSubscribed = true
                sendReadyIfSubscribed()
            } else if frame.first == 0 {
                // The broker's connection went (it restarts): wait for the next one's subscription.
                eventsSubscribed = false
            }
        }
        return true
    }

    /// Closes the DEALER; connects again after `delay`, to the next broker listed unless `sameBroker`.
    private func disconnect(retryAfter delay: Nanos, sameBroker: Bool = false) {
        // The next broker listed (a standby that may be active now), then round again.
        if !sameBroker { joinIndex += 1 }
        membership.noteLeft()
        // The broker may be moving this worker's keys already: no direct read until one grants again.
        lease?.revoke(at: now())
        heartbeats.forgetConnection()
        try? dealer?.stopMonitoring()
        dealerMonitor?.close()
        dealerMonitor = nil
        monitorPending = false
        dealer?.close()
        dealer = nil
        dealerDescriptor = nil
        dealerPending = false
        reconnectAt = now() + delay
    }

    /// `[empty, MDPW01] + frames` on the DEALER.
    private func sendToBroker(_ frames: [[UInt8]]) {
        guard let dealer else { return }
        _ = try? dealer.send(multipart: [[], WorkerProtocol.header] + frames, flags: .dontWait)
        // A send may consume the socket's edge-triggered readiness: read before blocking again, or a
        // message that arrived meanwhile would wait unseen (and the broker look silent).
        dealerPending = true
    }

    private func sendHeartbeat() {
        let usage = pool.usage
        let kept = store.usage
        let snapshot = stats.snapshot(pool: usage, store: kept)
        var load = WorkerLoad(threads: usage.threads, busy: usage.busy, queued: usage.queued, layouts: kept.count, layoutBytes: kept.bytes, itemsPrepared: snapshot.itemsPrepared)
        if let lease {
            let time = now()
            load.leaseSequence = heartbeats.noteSent(at: time)
            // A lapse is noticed here at the latest: a heartbeat goes every interval while connected.
            lease.noteTime(time)
            load.direct = directCounters?.tally(lease: lease)
        }
        sendToBroker([WorkerCommand.heartbeat.frame, load.frame])
    }

    /// Commands from the broker, a bounded batch at a time; true when it stopped at the bound.
    private func receiveFromBroker(accepting: Bool) -> Bool {
        guard let dealer else { return false }
        for _ in 0..<256 {
            var head = BrokerMessageHead()
            let last: Message
            do {
                guard let message = try dealer.receiveMessage(flags: .dontWait, leading: { $0.withUnsafeBytes { head.read($0) } }) else {
                    return false
                }
                last = message
            } catch {
                logger.warning("receive from the broker failed", metadata: ["error": "\(error)"])
                return false
            }
            lastHeard = now()
            membership.noteHeard(at: lastHeard)
            guard handle(head, last: last, accepting: accepting) else { return false }
        }
        return true
    }

    /// False when the conversation ended (DISCONNECT).
    private func handle(_ head: BrokerMessageHead, last: consuming Message, accepting: Bool) -> Bool {
        var command = head.command
        if head.count == 2 { command = last.withUnsafeBytes { $0.count == 1 ? WorkerCommand(rawValue: $0[0]) : nil } }
        guard head.wellFormed, head.count >= 2, let command else {
            logger.debug("malformed message from the broker ignored")
            return true
        }
        if command != .disconnect {
            refusals = 0
            backoff = reconnectNanos
        }
        switch command {
        case .request:
            // `token, "", body`, or with CURVE `token, "", caller, body`: run as that caller.
            guard head.count == 5 || head.count == 6, let token = head.token, head.delimiterEmpty else { return true }
            var caller = Caller.anonymous
            if head.count == 6 {
                guard let named = head.extra.first.flatMap(Caller.init(workerFrame:)) else {
                    logger.warning("REQUEST with a malformed caller frame answered internal")
                    reply(token: token, body: WorkerErrorReplies.failure(RequestBody(last), WireError(.internal, "the broker sent a malformed caller frame")))
                    return true
                }
                caller = named
            }
            let body = RequestBody(last, caller: caller, epoch: brokerEpoch, conversation: membership.conversation)
            if !accepting {
                reply(token: token, body: WorkerErrorReplies.busy(body, message: "the daemon is shutting down"))
            } else if !pool.submit(envelope: Envelope([token.frame]), body: body) {
                stats.recordRequest(op: "unknown", micros: 0, errorCode: "busy")
                reply(token: token, body: WorkerErrorReplies.busy(body, message: "the request queue is full; retry later"))
            }
        case .restore:
            guard head.count >= 5, let token = head.token, head.delimiterEmpty else { return true }
            // Frames: header (the first after the delimiter), then the recipe's bodies.
            var frames = head.extra
            frames.append(last.bytes)
            guard let header = frames.first.flatMap(RestoreHeader.init(frame:)) else {
                reply(token: token, body: RestoreOutcome.failed(code: "internal", message: "malformed RESTORE").body)
                return true
            }
            var job = RestoreJob(header: header, frames: frames.dropFirst())
            job.epoch = brokerEpoch
            let body = brokerJobs.submit(.restore(job))
            if !pool.submit(envelope: Envelope([token.frame]), body: body) {
                // Nothing changed here: the broker sends it again.
                brokerJobs.withdraw(body)
                reply(token: token, body: RestoreOutcome.failed(code: "busy", message: "the worker's queue is full").body)
            }
        case .snapshot:
            // `token, "", header`: run as an op on the key, behind the requests that came before it.
            guard head.count == 5, let token = head.token, head.delimiterEmpty else { return true }
            guard let request = SnapshotRequest(frame: last.bytes) else {
                reply(token: token, body: SnapshotOutcome.failed(code: "internal", message: "malformed SNAPSHOT").frame)
                return true
            }
            let body = brokerJobs.submit(.snapshot(SnapshotJob(request: request)))
            if !pool.submit(envelope: Envelope([token.frame]), body: body) {
                brokerJobs.withdraw(body)
                reply(token: token, body: SnapshotOutcome.failed(code: "busy", message: "the worker's queue is full").frame)
            }
        case .release:
            var frames = head.extra
            if head.count >= 3 { frames.append(last.bytes) }
            for key in ReleaseFrames.decode(frames) {
                // In the key's order, behind the requests that came before it; nothing answers.
                let body = brokerJobs.submit(.release(key))
                if !pool.submit(envelope: Envelope(), body: body) {
                    // A full queue: released at once rather than kept (the broker has moved on).
                    brokerJobs.withdraw(body)
                    _ = store.release(key)
                }
            }
        case .fence:
            // `token, "", header`: no direct read of the key is answered from now on; the REPLY tells the
            // broker so, and only then does it send the key's rebuild to its new owner.
            guard head.count == 5, let token = head.token, head.delimiterEmpty, let request = FenceRequest(frame: last.bytes) else { return true }
            fences?.fence(request.key)
            reply(token: token, body: FenceRequest.done)
        case .heartbeat:
            // Protocol 4: the broker's epoch, which the changes it sends are stamped with.
            if head.count == 3, let epoch = last.withUnsafeBytes({ $0.count == 8 ? UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) : nil }) {
                brokerEpoch = epoch
            } else if head.count == 4, let frame = head.extra.first, frame.count == 8 {
                // To a worker with a direct endpoint: the epoch, then a read lease (`LeaseGrant`).
                brokerEpoch = frame.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                if let lease, let grant = LeaseGrant(frame: last.bytes), let end = heartbeats.leaseEnd(of: grant) {
                    lease.extend(until: end, at: now())
                }
            }
        case .disconnect:
            // The broker ended the conversation (it restarted, or declared this worker dead): start a
            // new one, at once the first time, then backing off while it keeps refusing.
            let delay = refusals == 0 ? 0 : backoff
            if refusals > 0 { backoff = min(backoff * 2, reconnectMaxNanos) }
            refusals += 1
            logger.info("broker disconnected this worker; joining again", metadata: ["afterMillis": "\(delay / 1_000_000)"])
            disconnect(retryAfter: delay)
            return false
        case .ready, .reply, .evicted:
            logger.debug("worker command from the broker ignored")
        }
        return true
    }

    /// The DEALER's connection dropped while the broker may still be there (a TCP reset, not a silence):
    /// the broker ended this conversation when it saw the drop, and keeps this worker's layouts for
    /// `cluster.dropGraceMillis` for it to come back. So a new conversation starts at once, with READY
    /// listing them, instead of on the next heartbeat's DISCONNECT (issue 14, defect 5). True when it
    /// stopped at its bound.
    private func connectionEvents(draining: Bool) -> Bool {
        guard let monitor = dealerMonitor else { return false }
        for _ in 0..<16 {
            guard let event = try? monitor.receiveMonitorEvent(flags: .dontWait) else { return false }
            guard event.kind == .disconnected, !draining else { continue }
            logger.warning("connection to the broker dropped; joining again at once", metadata: ["broker": "\(currentBroker)"])
            disconnect(retryAfter: 0, sameBroker: true)
            return false
        }
        return true
    }

    private func reply(token: RequestToken, body: [UInt8]) {
        sendToBroker([WorkerCommand.reply.frame, token.frame, [], body])
    }

    // MARK: Replies, events, stats

    private func deliverMailbox() -> (replies: Bool, events: Bool, shutdown: Bool) {
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

    /// A request from the direct endpoint: a cheap read that came first in its batch (`alone`), of a key
    /// no admitted request is on, is decoded and answered here, as a single daemon's `FrontDesk` answers
    /// one: the pool's hand-offs cost more than such a read. The rest of a batch goes to the pool, whose
    /// threads share a burst of pipelined reads that this one thread would take one after another (with
    /// every read answered here, pipelined direct reads fell to 0.56–0.59 of a single daemon's, against
    /// 0.76–0.89 through the pool, in the same runs). False when the pool is full (the front answers
    /// `busy`).
    private func admitDirect(envelope: Envelope, body: RequestBody, read: DirectRead, alone: Bool, at directFront: DirectFront) -> Bool {
        guard let jobs = directJobs, body.attachments.isEmpty, body.count <= InlineAnswerBounds.maxBodyBytes else {
            // Decoded by the pool, which finds it on the desk.
            directReads?.file(read, with: body)
            return pool.submit(envelope: envelope, body: body)
        }
        let arrived = DispatchTime.now().uptimeNanoseconds
        switch jobs.decodeDirect(body, arrivedIn: read.leaseTerm) {
        case .reply(let reply):
            answerHere(reply, to: envelope, since: arrived, at: directFront)
            return true
        case .run(let job, let key):
            if alone, pool.room(for: key) == .free, let reply = jobs.answerDirectAtOnce(job) {
                // Replies the workers posted leave first, as they would have had the pool answered this.
                let posted = deliverMailbox()
                deliveredWhileReceiving.events = deliveredWhileReceiving.events || posted.events
                deliveredWhileReceiving.shutdown = deliveredWhileReceiving.shutdown || posted.shutdown
                answerHere(reply, to: envelope, since: arrived, at: directFront)
                return true
            }
            // At the bound, `submit` refuses it and the front answers `busy`, as for any request.
            return pool.submit(envelope: envelope, decoded: job, key: key)
        }
    }

    private func answerHere(_ reply: JobReply, to envelope: Envelope, since arrived: UInt64, at directFront: DirectFront) {
        let now = DispatchTime.now().uptimeNanoseconds
        stats.recordRequest(op: reply.op, micros: (now > arrived ? now - arrived : 0) / 1000, errorCode: reply.errorCode)
        directFront.send(envelope: envelope, body: reply.body)
    }

    /// REPLY `[empty, MDPW01, 0x03, token, empty, body]`; a large body leaves without a copy. Replies to
    /// an earlier conversation (before a reconnect) go to the new one, where the broker ignores their
    /// unknown tokens.
    private func send(_ reply: OutgoingReply) {
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

    private func answerStats() -> Bool {
        guard let statsSocket else { return false }
        for _ in 0..<64 {
            guard let frames = try? statsSocket.receiveMultipart(flags: .dontWait) else { return false }
            guard frames.count >= 2, let body = frames.last else { continue }
            let answer: [UInt8]
            switch StatsRequestKind(body: body) {
            case .stats:
                var object = stats.snapshot(pool: pool.usage, store: store.usage).jsonObject
                var cluster: [String: Any] = ["role": "worker", "id": workerID, "broker": currentBroker, "connected": dealer != nil]
                if let lease, let directCounters, let directEndpoint {
                    var direct = directCounters.tally(lease: lease).jsonObject
                    direct["endpoint"] = directEndpoint
                    direct["leaseHolds"] = lease.holds(at: now())
                    cluster["direct"] = direct
                }
                object["cluster"] = cluster
                answer = StatsSnapshot.serialize(object)
            case .metrics:
                var metrics = WorkerMetrics(stats: stats, pool: pool, store: store, membership: membership)
                if let lease, let directCounters { metrics.direct = (lease, directCounters) }
                answer = metrics.exposition()
            }
            _ = try? statsSocket.send(multipart: Array(frames.dropLast()) + [answer], flags: .dontWait)
        }
        return true
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

/// The leading frames of a message from the broker, read in place: `["", "MDPW01", command, …]`.
struct BrokerMessageHead {
    private(set) var count = 0
    private(set) var wellFormed = true
    private(set) var command: WorkerCommand?
    private(set) var token: RequestToken?
    private(set) var delimiterEmpty = false
    /// Frames after the command other than a REQUEST's, RESTORE's or SNAPSHOT's token and delimiter.
    private(set) var extra: [[UInt8]] = []

    mutating func read(_ frame: UnsafeRawBufferPointer) {
        switch count {
        case 0: wellFormed = wellFormed && frame.isEmpty
        case 1: wellFormed = wellFormed && WorkerProtocol.isHeader(frame)
        case 2: command = frame.count == 1 ? WorkerCommand(rawValue: frame[0]) : nil
        case 3 where command == .request || command == .restore || command == .snapshot || command == .fence: token = RequestToken(frame: frame)
        case 4 where command == .request || command == .restore || command == .snapshot || command == .fence: delimiterEmpty = frame.isEmpty
        default: extra.append(Array(frame))
        }
        count += 1
    }
}

/// Replies the worker's I/O thread writes itself.
enum WorkerErrorReplies {
    /// `busy`, echoing the request's id when it stands in the body's first 64 KiB.
    static func busy(_ body: RequestBody, message: String) -> [UInt8] {
        failure(body, WireError(.busy, message))
    }

    /// `error`, echoing the request's id when it stands in the body's first 64 KiB.
    static func failure(_ body: RequestBody, _ error: WireError) -> [UInt8] {
        let id = body.withUnsafeBytes { bytes in
            RequestDecoder.requestID(in: UnsafeRawBufferPointer(rebasing: bytes.prefix(64 * 1024)))
        }
        return ReplyEncoder.failure(id: id, error: error)
    }
}
