import Foundation

/// The daemon's own answer to the requests its I/O thread answers itself (`FrontDesk`), with none of
/// the daemon around it: a body decoded by `RequestHandler.decode` and answered by `answerAtOnce`, over
/// a store of its own, without a pool, stats, a mailbox or sockets.
///
/// Why it exists: for layoutd-bench's work floor (RoundTripBench), a ROUTER on one thread that does a
/// request's own work and nothing else. Its rate is the ceiling of any daemon that does that work on one
/// thread, so the daemon's rate over the floor's is what the daemon's own machinery costs. The daemon does
/// not use it: `FrontDesk` checks the pool between the decode and the answer, which a floor has no use for.
///
/// Sendable as `RequestHandler` is: its store is shared safely, so the store may be set up (`run`) on one
/// thread and read (`answer`) on another.
public struct InlineAnswerer: Sendable {
    private let handler: RequestHandler

    /// An empty store with the daemon's bounds from `configuration` (its store capacity and input limits).
    public init(configuration: ServerConfiguration = ServerConfiguration()) {
        // Changes make no events: nobody can subscribe, as in a daemon whose events nobody subscribes to.
        let store = LayoutStore(capacityBytes: configuration.storeCapacityBytes) { _ in }
        handler = RequestHandler(store: store, stats: ServerStats(), limits: configuration.inputLimits, startedAt: Date())
    }

    /// The reply the daemon's I/O thread would send for `body` itself, as `FrontDesk` makes it: a body it
    /// decodes (small, without attachments) that is a `ping`, a small rect `query`, or does not decode.
    /// Nil for anything the daemon would hand to its pool. No other request being unfinished here, a
    /// query's layout is always free.
    public func answer(_ body: RequestBody) -> ReplyBody? {
        guard body.attachments.isEmpty, body.count <= FrontDesk.maxBodyBytes else { return nil }
        switch handler.decode(body) {
        case .reply(let reply):
            return reply.body
        case .run(let admitted, _):
            return handler.answerAtOnce(admitted, maxQueryElements: FrontDesk.maxQueryElements, keyIsFree: true)?.body
        }
    }

    /// Runs any request in full, as a worker would: to set up the store (a `prepare`) before `answer` is
    /// measured.
    public func run(_ body: RequestBody) -> ReplyBody {
        switch handler.decode(body) {
        case .reply(let reply): return reply.body
        case .run(let admitted, _): return handler.execute(admitted).body
        }
    }
}
