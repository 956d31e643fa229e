import LayoutEngine
import LayoutServer
import LayoutWire

/// Nanoseconds on the monotonic clock (`DispatchTime.uptimeNanoseconds`).
typealias Nanos = UInt64

/// A worker the broker knows, from its READY until it is declared dead.
final class WorkerRecord {
    enum State {
        /// Takes new work.
        case alive
        /// Sent DISCONNECT: answers what it has, takes no new keys; its keys move away.
        case leaving
        /// Gone: its connection dropped, it missed its heartbeats, or it was replaced.
        case dead
    }

    /// A number for this registration, unique for the broker's life.
    let number: Int
    /// The ROUTER routing id of its connection.
    let routingID: [UInt8]
    let name: String
    /// Its rendezvous seed (from `name`).
    let seed: UInt64
    /// Requests it takes at once (READY's credit).
    let credit: Int
    let threads: Int
    /// The protocol version its READY declared: it is sent nothing a later version added.
    let protocolVersion: Int
    /// Its connection's file descriptor on the back socket, as the socket monitor reports it.
    let fileDescriptor: Int32?
    /// Its IP address, as libzmq reports the peer.
    let address: String
    let registeredAt: Nanos

    var state = State.alive
    var lastHeard: Nanos
    /// Requests, rebuilds and snapshots sent and not answered.
    var inFlight = 0 {
        didSet { loadIndex?.moved(self, from: oldValue) }
    }
    /// The least-loaded index it is filed in while it is live, and where.
    weak var loadIndex: LoadIndex?
    var loadSlot: (bucket: Int, index: Int)?
    /// Rebuilds from a recipe sent and not answered (at most `cluster.restoresPerWorker`).
    var restoresInFlight = 0
    /// Keys waiting for a rebuild here; those with requests waiting go first.
    var restoreQueue = FIFO<LayoutKey>()
    var urgentRestores = FIFO<LayoutKey>()
    /// Tokens of what it has in flight.
    var pendingTokens: Set<RequestToken> = []
    /// Keys it owns.
    var ownedKeys: Set<LayoutKey> = []
    /// Its last reported load.
    var load = WorkerLoad()
    /// Requests routed to it.
    var routed = 0
    /// Its direct endpoint for clients' reads, from READY; nil when it has none.
    let directEndpoint: String?
    /// Its last numbered heartbeat, which the next HEARTBEAT to it grants a read lease from
    /// (`LeaseGrant`), and when it was received: its keys do not move before the broker's wait
    /// (heartbeat × liveness) from then has passed, whatever ends its registration.
    var leaseHeartbeat: (sequence: UInt64, receivedAt: Nanos)?

    init(number: Int, routingID: [UInt8], ready: ReadyInfo, fileDescriptor: Int32?, address: String, now: Nanos) {
        self.number = number
        self.routingID = routingID
        name = ready.workerID
        seed = Rendezvous.seed(forWorker: ready.workerID)
        credit = ready.credit
        threads = ready.threads
        protocolVersion = ready.extensionVersion
        self.fileDescriptor = fileDescriptor
        self.address = address
        registeredAt = now
        lastHeard = now
        directEndpoint = ready.directEndpoint
    }

    /// Takes requests (alive, or leaving but still connected).
    var isConnected: Bool { state != .dead }
    var isAlive: Bool { state == .alive }
    var hasCredit: Bool { inFlight < credit }
    /// Whether it answers SNAPSHOT (protocol 3).
    var takesSnapshots: Bool { protocolVersion >= WorkerProtocol.snapshotVersion }
}

/// A client's request at the broker, from arrival to reply.
final class ClientRequest {
    let envelope: Envelope
    let body: HeldBody
    let route: RequestRoute
    /// Who sent it, with CURVE (the worker runs it as this caller); nil without CURVE.
    let caller: Caller?
    /// The key a keyed op works on, in its namespace; nil for other ops.
    let key: LayoutKey?
    let arrived: Nanos
    /// Its place in arrival order at this broker (two requests may arrive in one clock tick).
    let sequence: UInt64

    init(envelope: Envelope, body: HeldBody, route: RequestRoute, caller: Caller? = nil, arrived: Nanos, sequence: UInt64 = 0) {
        self.envelope = envelope
        self.body = body
        self.route = route
        self.caller = caller
        key = RoutingKey.key(of: route, body: body, caller: caller)
        self.arrived = arrived
        self.sequence = sequence
    }

    /// The op name for stats (`unknown` when the body named none).
    var opName: String { route.operation?.rawValue ?? "unknown" }

    /// Whether running it twice is harmless, so it can be sent again to another worker after one died
    /// with it: everything but the ops that change a layout (a body whose op cannot be read is answered
    /// with an error by any worker, so it counts as harmless).
    var isRetryable: Bool { !(route.operation?.changesLayout ?? false) }
}

/// Something the broker sent a worker and waits an answer for.
final class Pending {
    enum Kind {
        case client(ClientRequest, KeyRecord?)
        case restore(KeyRecord, RestoreHeader, fromRecipe: Bool)
        /// A copy rebuilt while the key waits for its dropped owner's return (`KeyRecord.standby`).
        case standby(KeyRecord, RestoreHeader)
        /// A snapshot asked to compact `Recipe` (the recipe the key had then), or with nil to give a key
        /// without a recipe one (`BrokerCore.reprotect`).
        case snapshot(KeyRecord, Recipe?)
        case listPart(ListAggregate)
        /// A FENCE of a key moving away from a worker with a direct endpoint: the move waits for it.
        case fence(KeyRecord)
    }

    let token: RequestToken
    let worker: WorkerRecord
    /// Changes once: a standby rebuild becomes the key's rebuild when its owner does not return in time.
    var kind: Kind
    /// The broker's epoch when it was sent: the worker stamps what it changes with it (it heard every
    /// epoch advance before this), so the key's copy there stands at this epoch.
    let epoch: UInt64

    init(token: RequestToken, worker: WorkerRecord, kind: Kind, epoch: UInt64) {
        self.token = token
        self.worker = worker
        self.kind = kind
        self.epoch = epoch
    }
}

/// A `list` sent to every worker, collecting their answers into one reply.
final class ListAggregate {
    let request: ClientRequest
    var waiting: Set<RequestToken> = []
    var entries: [ListResult.Entry] = []
    /// The last key every worker listed in full up to (the least of the last keys of the pages that
    /// said more follow); nil while none said so.
    var cutoff: LayoutKey?
    /// The first answer that was not a successful list (every worker would give the same error).
    var failure: HeldBody?
    var abandoned = false

    init(request: ClientRequest) {
        self.request = request
    }
}
