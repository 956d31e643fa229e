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
    private let front: FrontSocket
    private let desk: JobDesk<DirectRead>
    private let lease: ReadLease
    private let stats: ServerStats
    /// The endpoint bound (a `*` port resolved).
    var boundEndpoint: String { front.endpoint }
    var fileDescriptor: Int32 { front.fileDescriptor }

    init(
        context: Context, endpoint: String, configuration: ServerConfiguration, access: AccessControl?,
        desk: JobDesk<DirectRead>, lease: ReadLease, stats: ServerStats, logger: Logger
    ) throws {
        // With CURVE the caller's namespace is the one the broker gives it, from the same allow-list.
        let policy = FrontPolicy(
            roleName: "worker", maxMessageBytes: configuration.maxMessageBytes,
            attachmentRefusal: "a worker's direct endpoint takes no binary frames after the body", envelopeStart: DirectEnvelope.start()
        )
        front = try FrontSocket(context: context, endpoint: endpoint, configuration: configuration, access: access, policy: policy, stats: stats, logger: logger)
        self.desk = desk
        self.lease = lease
        self.stats = stats
    }

    /// Requests, a bounded batch at a time, each given to `submit` with the read it is (the lease's term
    /// as it arrived) and whether it came first in the batch (false: the queue is full); true when it
    /// stopped at the bound. `submit` files it on the desk if it hands the body to the pool undecoded.
    func receive(accepting: Bool, submit: (Envelope, RequestBody, DirectRead, _ first: Bool) -> Bool) -> Bool {
        front.receive(accepting: accepting) { arrived, index in
            let envelope = arrived.envelope
            let body = arrived.requestBody()
            // Taken as it arrives, in order with the broker's messages this thread reads: a read that
            // came before the grant of a new connection is never answered under it (`ReadLease`).
            let read = DirectRead(leaseTerm: lease.termIfHoldingNow)
            if !submit(envelope, body, read, index == 0) {
                desk.withdraw(body)
                stats.recordRequest(op: "unknown", micros: 0, errorCode: "busy")
                front.send(envelope: envelope, bytes: FrontReplies.busy(for: body, message: "the request queue is full; retry later"))
            }
        }
    }

    /// Sends a reply to the client behind `envelope` (a `DirectEnvelope`); a client that went away or
    /// stopped reading loses it, and the I/O thread never blocks on one.
    func send(envelope: Envelope, body: ReplyBody) {
        front.send(envelope: envelope, body: body)
    }

    /// Whether a send happened since the last call (the loop reads the socket again before it blocks).
    func takeSentSinceLook() -> Bool {
        front.takeSentSinceLook()
    }

    func close() {
        front.close(lingerMilliseconds: 200)
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
