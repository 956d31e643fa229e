import LayoutWire
import Logging
import ZeroMQ

/// A client-facing ROUTER as every role serves it (docs/PROTOCOL.md §1): the single daemon's front, a
/// cluster broker's front (and its standby's), and a worker's direct endpoint.
///
/// Why one type: each role once split envelopes, bounded sizes and sent replies in a loop of its own, and
/// they drifted apart (a broker's socket capped frames at `limits.maxMessageBytes`, so a body just over
/// the limit got no answer at all, where a daemon answers `too_large`; only the daemon bounded routing
/// frames). Here every role receives and replies the same way and plugs in only what is its own: what
/// it does with a request, and what it refuses (`FrontPolicy`).
///
/// Not Sendable: made, used and closed on one thread, like its socket.
public final class FrontSocket {
    /// The routing frames (all but the body) a request may carry, in bytes: ROUTER's routing id (at most
    /// 255 bytes), REQ's empty delimiter, and whatever small frames a DEALER client adds. A reply cannot
    /// carry more back without stalling every other client while they are copied.
    public static let maxEnvelopeBytes = 64 * 1024

    private let socket: Socket
    private let policy: FrontPolicy
    private let gate: AccessGate?
    private let stats: ServerStats
    private let logger: Logger
    /// Whether a send may have consumed the socket's edge-triggered readiness since the loop last asked
    /// (`takeSentSinceLook`): the loop must then read it again before it blocks.
    private var sentSinceLook = false

    /// The endpoint bound (a `:*` port resolved).
    public let endpoint: String
    /// The socket's `ZMQ_FD`, for the loop's poll.
    public let fileDescriptor: Int32

    /// Binds a front ROUTER on `endpoint` with the options every role's front has: the send high-water
    /// mark, the transport cap (`limits.maxTransportBytes`: beyond it libzmq drops the peer; between
    /// `limits.maxMessageBytes` and it the body is received whole and answered `too_large`), and CURVE
    /// with `access`.
    public init(
        context: Context, endpoint: String, configuration: ServerConfiguration, access: AccessControl?, policy: FrontPolicy,
        stats: ServerStats, logger: Logger
    ) throws {
        socket = try Socket(.router, in: context)
        try socket.set(.linger, 0)
        try socket.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        try socket.set(.maxMessageSize, configuration.resolvedMaxTransportBytes)
        if let access { try AccessGate.secureFront(socket, with: access) }
        try socket.bind(endpoint)
        self.endpoint = try socket.lastEndpoint
        fileDescriptor = try socket.get(.fileDescriptor)
        gate = access.map { AccessGate(access: $0) }
        self.policy = policy
        self.stats = stats
        self.logger = logger
    }

    /// Receives what is waiting, a bounded batch at a time so the loop's other sockets are not starved,
    /// and gives each request to `handle` (with its position in the batch) unless it was answered here:
    /// routing frames over `maxEnvelopeBytes` and a body over `limits.maxMessageBytes` (`too_large`),
    /// frames after the body where the role takes none, anything while not `accepting` (`busy`). True when
    /// it stopped at the bound (more may be waiting).
    public func receive(accepting: Bool, limit: Int = 256, _ handle: (consuming ArrivedRequest, _ index: Int) -> Void) -> Bool {
        for index in 0..<limit {
            var envelope = policy.envelopeStart
            var envelopeBytes = 0
            var attachments: [RequestBody] = []
            let body: Message
            let caller: Caller
            do {
                guard var frame = try socket.receive(flags: .dontWait) else { return false }
                // The envelope ends at the first empty frame (the delimiter) or, without one, before the
                // last frame; frames after a delimited body are its attachments (PROTOCOL.md §1).
                var delimited = false
                while frame.more && !delimited {
                    delimited = frame.count == 0
                    envelopeBytes += frame.count
                    if envelopeBytes <= Self.maxEnvelopeBytes { frame.withUnsafeBytes { envelope.append($0) } }
                    // The rest of a multipart message is already there: libzmq delivers it whole.
                    frame = try socket.receiveFollowingFrame()
                }
                var more = frame.more
                while more {
                    let attachment = try socket.receiveFollowingFrame()
                    more = attachment.more
                    attachments.append(RequestBody(attachment))
                }
                if let gate {
                    // With CURVE: who sent it, from the connection's User-Id; a key taken off the list
                    // meanwhile gets nothing.
                    guard let known = gate.caller(of: frame) else { continue }
                    caller = known
                } else {
                    caller = .anonymous
                }
                body = frame
            } catch {
                logger.warning("front receive failed", metadata: ["error": "\(error)"])
                return false
            }
            guard envelope.count > policy.envelopeStart.count else { continue }
            let arrived = ArrivedRequest(envelope: envelope, body: body, attachments: attachments, caller: caller)
            if let refusal = refusal(of: arrived, envelopeBytes: envelopeBytes, accepting: accepting) {
                answerRefused(arrived, refusal, envelopeBytes: envelopeBytes)
                continue
            }
            handle(arrived, index)
        }
        return true
    }

    /// Why `request` is answered here rather than served, if it is.
    private func refusal(of request: borrowing ArrivedRequest, envelopeBytes: Int, accepting: Bool) -> WireError? {
        if envelopeBytes > Self.maxEnvelopeBytes {
            let message = "the frames before the request's body are \(envelopeBytes) bytes, over the limit of \(Self.maxEnvelopeBytes) bytes"
            return WireError(.tooLarge, message)
        }
        let total = request.attachments.reduce(request.body.count) { $0 + $1.count }
        if Int64(total) > policy.maxMessageBytes {
            // Checked before anything else: the same request would be too large after a retry too. No
            // path: the whole body is at fault, not one field.
            let message = "the request is \(total) bytes, over the limit of \(policy.maxMessageBytes) bytes (limits.maxMessageBytes)"
            return WireError(.tooLarge, message)
        }
        if !request.attachments.isEmpty, let message = policy.attachmentRefusal {
            return WireError(.invalidRequest, message)
        }
        if !accepting {
            return WireError(.busy, "the \(policy.roleName) is shutting down")
        }
        return nil
    }

    private func answerRefused(_ request: consuming ArrivedRequest, _ error: WireError, envelopeBytes: Int) {
        // A refusal on the way in is counted as the daemon counts it: under no op (none was read), by
        // code; `busy` while shutting down is a reply, not a failure of the request, and is not counted.
        if error.code != .busy { stats.recordRequest(op: "unknown", micros: 0, errorCode: error.code.rawValue) }
        let reply = FrontReplies.failure(for: request.body, error: error)
        if envelopeBytes > Self.maxEnvelopeBytes {
            // A reply cannot carry these frames back, but the client still gets its one answer: addressed
            // to its routing id alone, behind an empty delimiter, as a DEALER or REQ client reads it.
            logger.warning("request refused: its routing frames are over the limit", metadata: ["bytes": "\(envelopeBytes)", "limit": "\(Self.maxEnvelopeBytes)"])
            var envelope = policy.envelopeStart
            if let routingID = request.envelope.frames.dropFirst(policy.envelopeStart.count).first {
                routingID.withUnsafeBytes { envelope.append($0) }
            }
            [UInt8]().withUnsafeBytes { envelope.append($0) }
            send(envelope: envelope, bytes: reply)
        } else {
            send(envelope: request.envelope, bytes: reply)
        }
    }

    // MARK: Replies

    /// Sends `body` to the client behind `envelope`. A client that went away or stopped reading (its queue
    /// at the high-water mark) loses its reply: no role ever blocks on one client.
    public func send(envelope: Envelope, body: ReplyBody) {
        send(envelope: envelope) { socket throws(ZeroMQError) in _ = try body.send(on: socket, flags: .dontWait) }
    }

    /// Sends `bytes` to the client behind `envelope`, as `send(envelope:body:)`.
    public func send(envelope: Envelope, bytes: [UInt8]) {
        send(envelope: envelope) { socket throws(ZeroMQError) in _ = try socket.send(bytes, flags: .dontWait) }
    }

    /// Sends the envelope's frames, then lets `rest` send the reply's frames (the last without `sendMore`).
    /// Only the first frame can meet a full queue: libzmq queues a multipart message whole or not at all,
    /// so when the envelope's first frame is refused nothing of the reply is sent.
    public func send(envelope: Envelope, rest: (Socket) throws(ZeroMQError) -> Void) {
        sentSinceLook = true
        do {
            let socket = self.socket
            var skipped = 0
            let skip = policy.envelopeStart.count
            let headSent = try envelope.forEachFrame { (frame) throws(ZeroMQError) -> Bool in
                // A role's own leading frames (a direct request's mark) are not the client's.
                if skipped < skip {
                    skipped += 1
                    return true
                }
                return try socket.send(frame, flags: [.dontWait, .sendMore])
            }
            guard headSent else { return }
            try rest(socket)
        } catch {
            logger.debug("reply not sent", metadata: ["error": "\(error)"])
        }
    }

    /// Whether a send happened since the last call; the loop then reads the socket again before it blocks.
    public func takeSentSinceLook() -> Bool {
        defer { sentSinceLook = false }
        return sentSinceLook
    }

    /// Closes the socket, first letting the last replies leave for up to `lingerMilliseconds` (bounded, so
    /// closing cannot hang).
    public func close(lingerMilliseconds: Int32 = 1000) {
        try? socket.set(.linger, lingerMilliseconds)
        socket.close()
    }
}

/// A request as a front received it: its routing frames, its body and attachments (each still the
/// message it arrived in), and who sent it.
public struct ArrivedRequest: ~Copyable {
    /// The routing frames, after the role's own leading frames (`FrontPolicy.envelopeStart`).
    public var envelope: Envelope
    public var body: Message
    public var attachments: [RequestBody]
    public var caller: Caller

    /// The body, for a role that holds it as it came (a broker, which routes it on undecoded).
    public consuming func takeBody() -> Message {
        body
    }

    /// The request as the worker pool takes it (a daemon's, a worker's direct endpoint's).
    public consuming func requestBody() -> RequestBody {
        RequestBody(body, caller: caller, attachments: attachments)
    }
}

/// What makes one role's front its own: everything else a front does is the same for every role.
public struct FrontPolicy: Sendable {
    /// How the role is named in a `busy` answer while it shuts down ("daemon", "worker").
    public var roleName: String
    /// `limits.maxMessageBytes`: a larger body (attachments included) is answered `too_large`.
    public var maxMessageBytes: Int64
    /// The message of the `invalid_request` that answers a request with frames after its body, for a role
    /// that takes none; nil where they are served.
    public var attachmentRefusal: String?
    /// Frames every request's envelope starts with, put there by the role (a worker marks its direct
    /// requests so their replies find their way back); they are not sent back to the client.
    public var envelopeStart: Envelope

    public init(roleName: String, maxMessageBytes: Int64, attachmentRefusal: String? = nil, envelopeStart: Envelope = Envelope()) {
        self.roleName = roleName
        self.maxMessageBytes = maxMessageBytes
        self.attachmentRefusal = attachmentRefusal
        self.envelopeStart = envelopeStart
    }
}
