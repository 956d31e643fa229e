import Dispatch
import LayoutServer
import LayoutWire
import Logging
import ZeroMQ

/// The worker's conversation with its broker: MDP's READY, heartbeats and reconnects (PROTOCOL.md §10.3–10.5).
extension WorkerLink {
    // MARK: The broker connection

    /// A new DEALER to the broker and READY with the layouts this worker keeps (MDP: a fresh socket
    /// for every conversation, so nothing queued for the old one is delivered on the new).
    func connect() {
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
    func sendReadyIfSubscribed() {
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
    func receiveSubscriptions() -> Bool {
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
    func disconnect(retryAfter delay: Nanos, sameBroker: Bool = false) {
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
    func sendToBroker(_ frames: [[UInt8]]) {
        guard let dealer else { return }
        _ = try? dealer.send(multipart: [[], WorkerProtocol.header] + frames, flags: .dontWait)
        // A send may consume the socket's edge-triggered readiness: read before blocking again, or a
        // message that arrived meanwhile would wait unseen (and the broker look silent).
        dealerPending = true
    }

    func sendHeartbeat() {
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
    func receiveFromBroker(accepting: Bool) -> Bool {
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

    /// The DEALER's connection dropped while the broker may still be there (a TCP reset, not a silence):
    /// the broker ended this conversation when it saw the drop, and keeps this worker's layouts for
    /// `cluster.dropGraceMillis` for it to come back. So a new conversation starts at once, with READY
    /// listing them, instead of on the next heartbeat's DISCONNECT (issue 14, defect 5). True when it
    /// stopped at its bound.
    func connectionEvents(draining: Bool) -> Bool {
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

    func reply(token: RequestToken, body: [UInt8]) {
        sendToBroker([WorkerCommand.reply.frame, token.frame, [], body])
    }
}
