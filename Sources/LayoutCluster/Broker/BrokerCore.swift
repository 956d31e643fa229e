import Dispatch
import Foundation
import LayoutJournal
import LayoutServer
import LayoutWire
import Logging

/// The broker's routing logic, apart from its sockets (which `BrokerLoop` owns and drives it from):
/// which worker serves which request, keys and their owners, recipes, moves, failover, and the answers
/// for the cluster's stats. One thread uses it.
final class BrokerCore {
    struct Settings {
        var heartbeatNanos: Nanos
        var liveness: Int
        var recipeBytes: Int
        var restoresPerWorker: Int
        /// Whether the broker has CURVE: then every caller has a namespace of its own, else all share "".
        var secured = false
        /// When a recipe is compacted by a snapshot of its layout.
        var compaction = CompactionPolicy()
        /// Whether an advancing epoch catches up with the clock (ms since 1970), so that the next broker
        /// process, whose epoch is its start, is above every epoch this one used. Not with a lease, whose
        /// epochs the lease table gives out.
        var epochFollowsClock = true
        /// How long a worker whose connection dropped has to register again with its copies before its
        /// keys are rebuilt elsewhere (`cluster.dropGraceMillis`); 0: at once.
        var dropGraceNanos: Nanos = 0
        /// Until when the broker may act (its PostgreSQL lease); past it, requests are not sent on.
        var servingWindow = ServingWindow.unbounded
    }

    let settings: Settings
    unowned let output: any BrokerOutput
    let logger: Logger
    /// Requests answered, errors and latencies, counted as a single daemon counts them.
    let stats: ServerStats
    var counters = RoutingCounters()
    /// Transitions of keys' ownership (`KeyOwnership.swift`).
    var ownership = OwnershipCounters()
    /// The cluster's series in `metrics`, beside the daemon's in `stats.metrics`.
    let clusterMetrics = ClusterMetrics()

    var workers: [WorkerRecord] = []
    /// Workers taking new work, in registration order: the candidates of rendezvous hashing and of
    /// least-loaded routing.
    var live: [WorkerRecord] = []
    var liveSeeds: [UInt64] = []
    var byRoutingID: [[UInt8]: WorkerRecord] = [:]
    var byDescriptor: [Int32: WorkerRecord] = [:]
    var nextWorkerNumber = 1

    var keys: [LayoutKey: KeyRecord] = [:]
    /// Keys waiting for the return of a worker whose connection dropped, by its name (`BrokerCore+Returns`).
    var awaitingReturn: [String: (until: Nanos, keys: [LayoutKey])] = [:]
    /// While set: the broker has just started and holds requests on keys until then (`BrokerCore+Rejoin`).
    var rejoinUntil: Nanos?
    var rejoinHeld: [ClientRequest] = []
    /// Client requests admitted so far: each one's place in arrival order.
    var nextRequestSequence: UInt64 = 0
    let recipes: RecipeBook
    var pending: [RequestToken: Pending] = [:]
    /// Tokens start at a random point, so a worker's late reply to an earlier broker process is never
    /// mistaken for one of ours.
    var nextToken = UInt64.random(in: 1 ..< (1 << 62))
    /// Keys not settled (moving or being rebuilt).
    var keysInMotion = 0
    /// The records of `keys` kept and in each phase, counted as they change (for `stats`).
    let tally = KeyTally()
    /// `list` requests waiting for moves to finish, so that no key is missed.
    var listsWaiting: [ClientRequest] = []
    /// Requests waiting at the broker (held for a move, or a list waiting for moves).
    var heldCount = 0
    /// The live workers by requests outstanding, for least-loaded routing.
    let loadIndex = LoadIndex()
    /// Client requests admitted and not answered.
    var clientsInFlight = 0
    /// Events seen passing the proxy (its capture).
    var eventsPublished = 0
    /// Subscriptions on the events socket, by topic prefix, as XPUB reports them through the proxy.
    var subscriptions: [[UInt8]: Int] = [:]

    /// The broker's fencing epoch: at start, its start in milliseconds since 1970 (or its lease's), so a
    /// restarted broker's is greater (issue 14); then one more each time a worker is declared dead
    /// (`advanceEpoch`). Workers stamp the changes and rebuilds they make with the epoch they last heard,
    /// and copies of a key are ordered by (epoch, version): a worker declared dead that still applied a
    /// change stamps it with the epoch before its death, below every copy made since. Without a journal,
    /// this rests on the clock not going back between two starts (docs/PROTOCOL.md §10.9).
    var epoch: UInt64

    /// The route table's version (`BrokerCore+Route`): moves on whenever a key's owner or epoch, or the
    /// live workers, change.
    var routeVersion = 0
    /// What the next `route` event tells, and with CURVE who must hear it (`BrokerCore+Route`): each
    /// client reads only its own namespace's keys, so a key's change concerns its namespace alone, while a
    /// change of the live workers concerns everyone. The loop takes them once per pass.
    var routeChanges = RouteChanges()
    /// The changes the loop last took to publish, which `routeEvent` describes.
    var routeChangesTaken = RouteChanges()

    /// Journal writes asked for so far: a reply that caused some waits for them (`replyWhenJournaled`).
    var journalWrites = 0
    /// Whether the change being learned must wait for the journal writes asked for before it, though it
    /// asks none itself (`acknowledgeWithoutRecipe`).
    var acknowledgesAfterJournal = false
    /// The recipes' journal's figures for `stats` and `metrics`; nil without a journal.
    var journalStatistics: (() -> Journal.Statistics)?

    init(settings: Settings, output: any BrokerOutput, stats: ServerStats = ServerStats(), epoch: UInt64? = nil, logger: Logger) {
        self.epoch = epoch ?? UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        self.settings = settings
        self.stats = stats
        self.output = output
        self.logger = logger
        recipes = RecipeBook(capacityBytes: settings.recipeBytes, compaction: settings.compaction)
        recipes.onChange = { [unowned self] change in
            journalWrites += 1
            // Under the key's epoch (the one its worker stamped the change with), so that a restarted
            // broker ranks that worker's copy equal to the journal's, not below it.
            self.output.journal(change, epoch: keys[change.key]?.epoch ?? self.epoch)
        }
    }

    func makeToken() -> RequestToken {
        nextToken &+= 1
        return RequestToken(nextToken)
    }

    // MARK: Client requests

    /// A request from the front socket, and who sent it (with CURVE).
    func clientRequest(envelope: Envelope, body: HeldBody, caller: Caller? = nil, now: Nanos) {
        let route = body.withUnsafeBytes { RequestRoute(scanning: $0) }
        clientsInFlight += 1
        nextRequestSequence += 1
        let request = ClientRequest(envelope: envelope, body: body, route: route, caller: caller, arrived: now, sequence: nextRequestSequence)
        // A broker whose lease may be another's changes nothing and reads nothing (its answer is not
        // sent either: `BrokerLoop` says nothing past the window).
        guard settings.servingWindow.isOpen else {
            answer(request, WireError(.unavailable, "this broker's lease ran out; try the next front endpoint"))
            return
        }
        // `route` waits with the keys: until the workers have registered again, the table is not yet
        // the one whose copies the broker will keep.
        if rejoinUntil != nil, request.key != nil || route.operation == .list || routeAsk(in: request) != nil {
            holdUntilRejoined(request)
            return
        }
        dispatch(request)
    }

    /// Routes a request (a new one, or one retried after its worker died).
    func dispatch(_ request: ClientRequest) {
        if let ask = routeAsk(in: request) {
            answerRoute(request, ask)
        } else if request.route.operation == .list {
            startList(request)
        } else if let key = request.key {
            routeKeyed(request, key: key)
        } else {
            routeStateless(request)
        }
    }

    /// `ping`, `layout` and bodies without a routable op: to the least loaded worker.
    private func routeStateless(_ request: ClientRequest) {
        counters.stateless += 1
        guard !live.isEmpty else {
            answer(request, WireError(.unavailable, "no worker is serving; retry later"))
            return
        }
        guard let worker = leastLoaded() else {
            counters.busy += 1
            answer(request, WireError(.busy, "the request queue is full; retry later"))
            return
        }
        send(request, to: worker, record: nil)
    }

    /// Ops on a key: to its owner, in arrival order.
    private func routeKeyed(_ request: ClientRequest, key: LayoutKey) {
        counters.keyed += 1
        if let record = keys[key] {
            recipes.touch(key)
            if record.isHolding {
                hold(request, on: record)
                return
            }
            guard let owner = record.owner, owner.isConnected else {
                place(record)
                if record.isHolding {
                    hold(request, on: record)
                } else if let owner = record.owner {
                    sendRespectingCredit(request, to: owner, record: record)
                } else {
                    answer(request, WireError(.unavailable, "no worker is serving; retry later"))
                }
                return
            }
            sendRespectingCredit(request, to: owner, record: record)
            return
        }
        let hash = Rendezvous.hash(key)
        guard let winner = rendezvousWinner(hash) else {
            answer(request, WireError(.unavailable, "no worker is serving; retry later"))
            return
        }
        if request.route.operation == .prepare {
            let record = KeyRecord(key: key, tally: tally)
            keys[key] = record
            setOwner(record, winner)
            sendRespectingCredit(request, to: winner, record: record)
        } else {
            // A key the cluster never kept: its rendezvous owner answers (`unknown_layout`), in order.
            sendRespectingCredit(request, to: winner, record: nil)
        }
    }

    func hold(_ request: ClientRequest, on record: KeyRecord) {
        // In arrival order: a request sent on and come back (its rebuild did not happen) goes before
        // those that arrived after it and waited here.
        if let later = record.held.firstIndex(where: { $0.sequence > request.sequence }) {
            record.held.insert(request, at: later)
        } else {
            record.held.append(request)
        }
        heldCount += 1
        counters.held += 1
        // The first request to wait makes its key's rebuild urgent.
        if record.held.count == 1, case .queued(let target) = record.phase { promoteRestore(record.key, at: target) }
        if record.held.count == 1, let standby = record.standby, standby.token == nil { promoteRestore(record.key, at: standby.worker) }
    }

    private func sendRespectingCredit(_ request: ClientRequest, to worker: WorkerRecord, record: KeyRecord?) {
        guard worker.hasCredit else {
            counters.busy += 1
            answer(request, WireError(.busy, "the request queue is full; retry later"))
            return
        }
        send(request, to: worker, record: record)
    }

    /// Sends `request` to `worker` (whatever its credit: requests released after a move were admitted
    /// already); a worker found gone is declared dead and the request routed again.
    func send(_ request: ClientRequest, to worker: WorkerRecord, record: KeyRecord?) {
        let token = makeToken()
        guard output.send(.request(token, request.body, caller: request.caller), to: worker.routingID) else {
            workerDied(worker, reason: "unreachable")
            dispatch(request)
            return
        }
        pending[token] = Pending(token: token, worker: worker, kind: .client(request, record), epoch: epoch)
        worker.pendingTokens.insert(token)
        worker.inFlight += 1
        worker.routed += 1
        record?.inFlight += 1
    }

    /// The live worker with the fewest requests outstanding that has credit left; among equals, the
    /// one most recently back to that count (see `LoadIndex`).
    func leastLoaded() -> WorkerRecord? {
        loadIndex.leastLoaded()
    }

    /// The live worker a key hashes to.
    func rendezvousWinner(_ hash: UInt64) -> WorkerRecord? {
        Rendezvous.winner(keyHash: hash, seeds: liveSeeds).map { live[$0] }
    }

    /// Sets the epoch `record`'s copy stands at (the one its worker stamped it with). A kept key's journal
    /// record follows, so that a restarted broker ranks the copies workers report against the epoch the
    /// key reached: a stale copy from a later epoch than its last rebuild must not outrank it.
    func assignEpoch(_ record: KeyRecord, _ epoch: UInt64) {
        guard epoch != record.epoch else { return }
        record.epoch = epoch
        routeVersion += 1
        noteRouteChange(of: record.key)
        noteServedDirectly(record)
        guard record.kept else { return }
        journalWrites += 1
        output.journalEpoch(of: record.key, epoch: epoch)
    }

    func setOwner(_ record: KeyRecord, _ worker: WorkerRecord?) {
        if record.owner !== worker {
            routeVersion += 1
            noteRouteChange(of: record.key)
        }
        record.owner?.ownedKeys.remove(record.key)
        record.owner = worker
        worker?.ownedKeys.insert(record.key)
        noteServedDirectly(record)
    }

    // MARK: Answers the broker writes

    /// Answers `request` with `error` and counts it.
    func answer(_ request: ClientRequest, _ error: WireError) {
        if error.code == .unavailable { counters.unavailable += 1 }
        output.reply(to: request.envelope, bytes: ReplyEncoder.failure(id: request.route.id, error: error))
        record(request, errorCode: error.code.rawValue)
    }

    /// Counts an answered request as the single daemon does.
    func record(_ request: ClientRequest, errorCode: String?) {
        clientsInFlight -= 1
        let now = DispatchTime.now().uptimeNanoseconds
        stats.recordRequest(op: request.opName, micros: (now > request.arrived ? now - request.arrived : 0) / 1000, errorCode: errorCode)
    }
}
