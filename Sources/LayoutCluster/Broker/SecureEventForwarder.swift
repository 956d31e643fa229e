import LayoutServer
import LayoutWire
import ZeroMQ

/// The broker's event stream with CURVE, in place of libzmq's proxy, on the same thread and sockets.
///
/// A subscriber of a secured broker must receive exactly what a secured single daemon sends it: its own
/// namespace's events, under its own key (`AccessGate`). That takes two things `zmq_proxy_steerable`
/// cannot do: the client-facing XPUB is in manual mode, so each subscription must be filed by its
/// owner with `ZMQ_SUBSCRIBE` on the XPUB right after it is received (the proxy would only forward it
/// to the XSUB, and nobody would receive anything); and each event, which a worker publishes with its
/// layout's namespace as a third frame, must go out once under each key of that namespace, as the
/// allow-list stands now. So this loop reads both sockets and does what the daemon's I/O thread does
/// with its own XPUB, and shows the broker on the capture what libzmq's proxy would: each event as a
/// worker sent it, and each subscription message.
struct SecureEventForwarder {
    let xsub: Socket
    let xpub: Socket
    let capture: Socket
    let control: Socket
    let gate: AccessGate

    /// Forwards until `control` receives TERMINATE; throws `.terminated` once the context is shut down.
    func run() throws(ZeroMQError) {
        var poller = Poller()
        let events = poller.register(xsub)
        let subscriptions = poller.register(xpub)
        let commands = poller.register(control)
        while true {
            for item in try poller.poll(timeout: nil) {
                if item.token == commands {
                    if try terminateRequested() { return }
                } else if item.token == events {
                    try forwardEvents()
                } else if item.token == subscriptions {
                    try fileSubscriptions()
                }
            }
        }
    }

    /// Whether a command on the control socket is TERMINATE (PAUSE and RESUME are not used).
    private func terminateRequested() throws(ZeroMQError) -> Bool {
        var terminate = false
        while let command = try control.receiveBytes(flags: .dontWait) {
            if command == Array(Proxy.Command.terminate.rawValue.utf8) { terminate = true }
        }
        return terminate
    }

    /// Events from the workers (and the broker's own `lost`), a bounded batch at a time: `[topic, body]`
    /// or `[topic, body, namespace]`. Those of the shared namespace "" reach nobody, as on a secured
    /// daemon; those of a worker whose key is no longer listed as admin are dropped and counted.
    private func forwardEvents() throws(ZeroMQError) {
        for _ in 0..<256 {
            guard let first = try xsub.receive(flags: .dontWait) else { return }
            let admitted = gate.admitsWorker(first, eventsIn: true)
            var frames = [first.bytes]
            var more = first.more
            while more {
                guard let next = try xsub.receive(flags: .dontWait) else { break }
                frames.append(next.bytes)
                more = next.more
            }
            guard admitted, frames.count == 2 || frames.count == 3 else { continue }
            _ = try? capture.send(multipart: frames, flags: .dontWait)
            let namespace = frames.count == 3 ? String(decoding: frames[2], as: UTF8.self) : ""
            _ = try gate.publish(namespace: namespace, topic: frames[0], body: frames[1], on: xpub)
        }
    }

    /// Subscription messages of the manual XPUB, a bounded batch at a time: each filed under its
    /// subscriber's key, and shown on the capture for the broker's count of subscribers. They need not
    /// reach the workers: the XSUB subscribes to everything.
    private func fileSubscriptions() throws(ZeroMQError) {
        for _ in 0..<256 {
            guard let message = try xpub.receive(flags: .dontWait) else { return }
            guard let filed = gate.file(subscription: message, on: xpub) else { continue }
            if filed.subscribe, let token = SubscriptionConfirmation.token(inTopic: filed.prefix) {
                // Filed just now, after the subscriber's earlier subscriptions: all are in effect.
                let event = SubscriptionConfirmation.event(topic: filed.filed, token: token)
                _ = try? xpub.send(multipart: [event.topic, event.body], flags: .dontWait)
            }
            _ = try? capture.send([filed.subscribe ? 1 : 0] + filed.prefix, flags: .dontWait)
        }
    }
}
