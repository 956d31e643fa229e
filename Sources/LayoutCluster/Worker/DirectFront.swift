import LayoutServer
import LayoutWire
import Logging
import ZeroMQ

/// A worker's direct endpoint (`cluster.direct`): a ROUTER on which clients read the keys this worker
/// owns without crossing the broker (docs/PROTOCOL.md, Direct reads). Made, used and closed on the
/// worker's I/O thread, which owns the socket for its whole life: requests go to the same pool as the
/// broker's, with their conditions filed on `desk`, and replies come back through the I/O thread's
/// mailbox like every other reply, marked as this socket's (`DirectEnvelope`).
///
/// Not Sendable: one thread, like its socket.
final class DirectFront {
    /// The routing frames sent back with a reply, at most (as the single daemon's front).
    private static let maxEnvelopeBytes = 64 * 1024

    private let socket: Socket
    private let desk: JobDesk<DirectRead>
    private let lease: ReadLease
    private let stats: ServerStats
    private let logger: Logger
    /// With CURVE: who sent each request, from its connection's User-Id, as at the broker's front.
    private let gate: AccessGate?
    /// The endpoint bound (a `*` port resolved).
    let boundEndpoint: String
    let fileDescriptor: Int32

    init(
        context: Context, endpoint: String, configuration: ServerConfiguration, access: AccessControl?,
        desk: JobDesk<DirectRead>, lease: ReadLease, stats: ServerStats, logger: Logger
    ) throws {
        socket = try Socket(.router, in: context)
        try socket.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        try socket.set(.maxMessageSize, configuration.maxMessageBytes)
        if let access { try AccessGate.secureFront(socket, with: access) }
        gate = access.map { AccessGate(access: $0) }
        try socket.bind(endpoint)
        boundEndpoint = try socket.lastEndpoint
        fileDescriptor = try socket.get(.fileDescriptor)
        self.desk = desk
        self.lease = lease
        self.stats = stats
        self.logger = logger
    }

    /// Requests, a bounded batch at a time, each given to `submit` with the read it is (the lease's term
    /// as it arrived) and whether it came first in the batch (false: the queue is full); true when it
    /// stopped at the bound. `submit` files it on the desk if it hands the body to the pool undecoded.
    func receive(accepting: Bool, submit: (Envelope, RequestBody, DirectRead, _ first: Bool) -> Bool) -> Bool {
        for index in 0..<256 {
            var envelope = DirectEnvelope.start()
            var envelopeBytes = 0
            var attachments = 0
            let body: RequestBody
            do {
                guard var frame = try socket.receive(flags: .dontWait) else { return false }
                // As at the single daemon's front (PROTOCOL.md §1): the envelope ends at the first empty
                // frame or before the last frame.
                var delimited = false
                while frame.more && !delimited {
                    delimited = frame.count == 0
                    envelopeBytes += frame.count
                    if envelopeBytes <= Self.maxEnvelopeBytes { frame.withUnsafeBytes { envelope.append($0) } }
                    frame = try socket.receiveFollowingFrame()
                }
                var more = frame.more
                while more {
                    more = try socket.receiveFollowingFrame().more
                    attachments += 1
                }
                if let gate {
                    // With CURVE: the caller's namespace is the one the broker gives it, from the same
                    // allow-list; a key taken off the list gets nothing.
                    guard let caller = gate.caller(of: frame) else { continue }
                    body = RequestBody(frame, caller: caller)
                } else {
                    body = RequestBody(frame)
                }
            } catch {
                logger.warning("direct endpoint receive failed", metadata: ["error": "\(error)"])
                return false
            }
            guard envelope.count > 1 else { continue }
            guard envelopeBytes <= Self.maxEnvelopeBytes else {
                // As the single daemon: answered behind the peer's routing id and a delimiter alone.
                let routingID = envelope.frames.dropFirst().first ?? []
                let error = WireError(.tooLarge, "the request's routing frames add up to \(envelopeBytes) bytes, more than \(Self.maxEnvelopeBytes)")
                stats.recordRequest(op: "unknown", micros: 0, errorCode: error.code.rawValue)
                send(envelope: Envelope([[], routingID, []]), body: ReplyBody(WorkerErrorReplies.failure(body, error)))
                continue
            }
            let refusal: WireError?
            if attachments > 0 {
                refusal = WireError(.invalidRequest, "a worker's direct endpoint takes no binary frames after the body")
            } else if !accepting {
                refusal = WireError(.busy, "the worker is shutting down")
            } else {
                refusal = nil
            }
            if let refusal {
                stats.recordRequest(op: "unknown", micros: 0, errorCode: refusal.code.rawValue)
                send(envelope: envelope, body: ReplyBody(WorkerErrorReplies.failure(body, refusal)))
                continue
            }
            // Taken as it arrives, in order with the broker's messages this thread reads: a read that
            // came before the grant of a new connection is never answered under it (`ReadLease`).
            let read = DirectRead(leaseTerm: lease.termIfHoldingNow)
            if !submit(envelope, body, read, index == 0) {
                desk.withdraw(body)
                stats.recordRequest(op: "unknown", micros: 0, errorCode: "busy")
                send(envelope: envelope, body: ReplyBody(WorkerErrorReplies.busy(body, message: "the request queue is full; retry later")))
            }
        }
        return true
    }

    /// Sends a reply to the client behind `envelope` (a `DirectEnvelope`); a client that went away or
    /// stopped reading loses it, and the I/O thread never blocks on one.
    func send(envelope: Envelope, body: ReplyBody) {
        do {
            let socket = self.socket
            var first = true
            let headSent = try envelope.forEachFrame { (frame) throws(ZeroMQError) -> Bool in
                // The mark is this side's, not the client's.
                if first {
                    first = false
                    return true
                }
                return try socket.send(frame, flags: [.dontWait, .sendMore])
            }
            guard headSent else { return }
            _ = try body.send(on: socket, flags: .dontWait)
        } catch {
            logger.debug("direct reply not sent", metadata: ["error": "\(error)"])
        }
    }

    func close() {
        try? socket.set(.linger, 200)
        socket.close()
    }
}

/// What the pool needs to know of a request that came on the direct endpoint: that it did, and the read
/// lease's term when it arrived (nil: no lease held then). The read's own conditions, `epoch` and
/// `minVersion`, are scanned from its body as it is decoded.
struct DirectRead: Sendable {
    var leaseTerm: UInt64?
}

/// The envelope of a direct-endpoint request as it travels through the pool: an empty frame first, then
/// the client's routing frames. The broker's requests travel with one 8-byte token frame, and a ROUTER's
/// first routing frame is a peer's id, never empty, so the mark tells the two apart when the reply
/// comes back to the I/O thread.
enum DirectEnvelope {
    /// An envelope holding the mark only, to append the client's frames to.
    static func start() -> Envelope {
        var envelope = Envelope()
        [UInt8]().withUnsafeBytes { envelope.append($0) }
        return envelope
    }

    /// Whether `envelope` is a direct request's.
    static func isDirect(_ envelope: Envelope) -> Bool {
        var marked = false
        _ = try? envelope.forEachFrame { frame in
            marked = frame.isEmpty
            return false
        }
        return marked
    }
}
