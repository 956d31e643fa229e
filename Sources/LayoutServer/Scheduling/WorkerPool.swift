import Dispatch
import Synchronization

/// What the worker pool runs for each request: decode the body, then answer it.
public protocol JobHandler: Sendable {
    associatedtype Decoded: Sendable
    /// What the front that admits a request hands its handler beside the body: nothing for the
    /// daemon's front (`Void`); a role with fronts of its own passes what its handler must know of
    /// where the request came from.
    associatedtype Context: Sendable = Void
    /// Decodes a request body (on a worker thread).
    func decode(_ body: RequestBody, context: Context) -> DecodeOutcome<Decoded>
    /// Runs a decoded request and produces its reply (on a worker thread, one at a time per key); nil
    /// when the job answers nobody: its reply is neither counted nor sent.
    func answer(_ request: Decoded) -> JobReply?
}

/// The result of decoding a body.
public enum DecodeOutcome<Decoded: Sendable>: Sendable {
    /// Run it; `key` is the layout it works on (jobs on one key run one at a time, in arrival order).
    case run(Decoded, key: String?)
    /// No execution needed: this is the reply (an error found while decoding).
    case reply(JobReply)
}

/// One reply body, with what stats need to know about it.
public struct JobReply: Sendable {
    public var body: ReplyBody
    /// The op name for stats (`unknown` when the body had none).
    public var op: String
    /// The error code when the reply is a failure.
    public var errorCode: String?

    public init(body: ReplyBody, op: String, errorCode: String?) {
        self.body = body
        self.op = op
        self.errorCode = errorCode
    }

    /// When set, the reply may leave only once something else is done (the change it acknowledges is in
    /// the journal): the pool hands it over and frees the worker; `wait` calls back once, on any thread,
    /// with the reply to send (this one, or one that says why the change is not acknowledged). The job's
    /// key stays held until then, so the key's replies leave in order.
    public var deferral: Deferral?

    /// A reply's wait for what must be done before it leaves (see `deferral`).
    public struct Deferral: Sendable {
        public let wait: @Sendable (@escaping @Sendable (JobReply) -> Void) -> Void

        public init(wait: @escaping @Sendable (@escaping @Sendable (JobReply) -> Void) -> Void) {
            self.wait = wait
        }
    }
}

/// A reply ready to go back out of the front socket with its request's envelope.
public struct OutgoingReply: Sendable {
    public var envelope: Envelope
    public var body: ReplyBody
}

/// A bounded Dispatch worker pool: `workers` tasks at once, a bounded queue behind them, ordering by
/// layout key (see `JobScheduler`). Replies go to `deliver`, never to a socket directly.
public final class WorkerPool<Handler: JobHandler>: Sendable {
    /// A request from admission to its reply. A class, so that the table, a decoding worker and an
    /// executing worker pass it around by reference instead of copying a decoded request.
    private final class Job: @unchecked Sendable {
        // @unchecked Sendable: `body`, `decoded` and `key` are set before the job enters the table or
        // change under the pool's lock, and a worker reads them only after taking the job from the
        // table under that lock.
        let envelope: Envelope
        /// When the request arrived, in `DispatchTime` nanoseconds (cheaper to read and subtract than
        /// a `ContinuousClock.Instant`, and this is read twice per request).
        let arrived: UInt64
        /// The body and what its front said of it; nil once decoded: a large request's memory is
        /// freed early.
        var request: (body: RequestBody, context: Handler.Context)?
        var decoded: Handler.Decoded?
        var key: String?

        init(envelope: Envelope, request: (body: RequestBody, context: Handler.Context)?, arrived: UInt64) {
            self.envelope = envelope
            self.request = request
            self.arrived = arrived
        }
    }

    /// A piece of work for a worker thread, with its job.
    private struct Task: Sendable {
        var work: JobScheduler.Work
        var job: Job
    }

    /// What a finished piece of work tells the scheduler.
    private enum Outcome {
        case decoded(JobScheduler.Sequence, Handler.Decoded, key: String?)
        case failedDecode(JobScheduler.Sequence)
        case executed(JobScheduler.Sequence, key: String?)
        /// Its reply waits on `deferral`, waited for once the scheduler knows; the job finishes in `resume`.
        case suspended(JobScheduler.Sequence, Job, JobReply.Deferral)
    }

    private struct State: ~Copyable {
        var scheduler: JobScheduler
        /// Admitted and unfinished jobs: a decode looks its job up here, an execution takes it out.
        var jobs: [JobScheduler.Sequence: Job] = [:]
    }

    private let state: Mutex<State>
    private let handler: Handler
    private let stats: ServerStats
    private let deliver: @Sendable (OutgoingReply) -> Void
    private let queue = DispatchQueue.global(qos: .userInitiated)
    public let workers: Int

    public init(workers: Int, queueCapacity: Int, handler: Handler, stats: ServerStats, deliver: @escaping @Sendable (OutgoingReply) -> Void) {
        self.workers = max(1, workers)
        state = Mutex(State(scheduler: JobScheduler(workers: self.workers, capacity: self.workers + queueCapacity)))
        self.handler = handler
        self.stats = stats
        self.deliver = deliver
    }

    /// Admits a request and what its front says of it; false when the pool is full (the caller
    /// answers `busy` at once).
    public func submit(envelope: Envelope, body: RequestBody, context: Handler.Context) -> Bool {
        let job = Job(envelope: envelope, request: (body, context), arrived: DispatchTime.now().uptimeNanoseconds)
        let (admitted, tasks) = state.withLock { state -> (Bool, [Task]) in
            guard let sequence = state.scheduler.admit() else { return (false, []) }
            state.jobs[sequence] = job
            // Usually empty (every worker busy): an empty array costs no allocation.
            return (true, Self.takeAll(&state))
        }
        for task in tasks { start(task) }
        return admitted
    }

    /// Admits a request its caller has decoded already (`decoded`, working on `key`); false when the
    /// pool is full. It runs in arrival order with those `submit` admitted.
    public func submit(envelope: Envelope, decoded: Handler.Decoded, key: String?) -> Bool {
        let job = Job(envelope: envelope, request: nil, arrived: DispatchTime.now().uptimeNanoseconds)
        job.decoded = decoded
        job.key = key
        let (admitted, tasks) = state.withLock { state -> (Bool, [Task]) in
            guard let sequence = state.scheduler.admitDecoded(key: key) else { return (false, []) }
            state.jobs[sequence] = job
            return (true, Self.takeAll(&state))
        }
        for task in tasks { start(task) }
        return admitted
    }

    /// Whether an op may run outside the pool now (see `room(for:)`).
    public enum Room: Sendable, Hashable {
        /// At the queue bound: a request is answered `busy`, wherever it would run.
        case full
        /// Below the bound, and an earlier request may still be on the op's layout: it must queue.
        case keyBusy
        /// Below the bound, and no admitted request is on the op's layout (or it has none).
        case free
    }

    /// Whether an op on `key` (nil: none) may run now outside the pool, in arrival order (see
    /// `JobScheduler.isFree`), and whether the pool is at its bound; one lock for both. Only meaningful
    /// on the thread that admits requests: nothing can be admitted between the answer and its use.
    public func room(for key: String?) -> Room {
        state.withLock { state in
            if state.scheduler.isFull { return .full }
            guard let key else { return .free }
            return state.scheduler.isFree(key: key) ? .free : .keyBusy
        }
    }

    /// Current load, for stats.
    public var usage: PoolUsage {
        state.withLock { state in
            PoolUsage(threads: workers, busy: state.scheduler.running, inFlight: state.scheduler.unfinished, queued: state.scheduler.queued)
        }
    }

    /// True when no admitted request is left unanswered.
    public var isIdle: Bool { state.withLock { $0.scheduler.unfinished == 0 } }

    private func start(_ task: Task) {
        queue.async { self.run(task) }
    }

    /// Every piece of work the scheduler allows now.
    private static func takeAll(_ state: inout State) -> [Task] {
        var tasks: [Task] = []
        while let task = takeNext(&state) { tasks.append(task) }
        return tasks
    }

    private static func takeNext(_ state: inout State) -> Task? {
        while let work = state.scheduler.nextWork() {
            switch work {
            case .decode(let s):
                // The job stays in the table: its decoded request is stored back into it.
                if let job = state.jobs[s] { return Task(work: work, job: job) }
            case .execute(let s):
                if let job = state.jobs.removeValue(forKey: s) { return Task(work: work, job: job) }
            }
        }
        return nil
    }

    /// Runs `task`, then keeps this worker busy with the next available piece of work while there is
    /// one, handing only the surplus to other workers: a request's decode and its execution (or the
    /// next request's decode) then run on the same thread, without a Dispatch hand-off and the thread
    /// wake-up it costs (docs/BENCHMARKS.md, layoutd-bench). Reporting a finished piece of work and
    /// taking the next one share one lock.
    private func run(_ first: Task) {
        var task = first
        while true {
            let outcome = perform(task)
            let (next, surplus) = state.withLock { state -> (Task?, [Task]) in
                switch outcome {
                case .decoded(let sequence, let decoded, let key):
                    task.job.decoded = decoded
                    task.job.request = nil
                    task.job.key = key
                    state.scheduler.decoded(sequence, key: key, needsExecution: true)
                case .failedDecode(let sequence):
                    state.jobs[sequence] = nil
                    state.scheduler.decoded(sequence, key: nil, needsExecution: false)
                case .executed(let sequence, let key):
                    state.scheduler.executed(sequence, key: key)
                case .suspended(let sequence, _, _):
                    state.scheduler.suspended(sequence)
                }
                // Any one will do: ordering is the scheduler's business, and whatever is available
                // now may run at once, in any order.
                guard let next = Self.takeNext(&state) else { return (nil, []) }
                return (next, Self.takeAll(&state))
            }
            for extra in surplus { start(extra) }
            // After the scheduler has the suspension: a wait that ends at once must find it there.
            if case .suspended(let sequence, let job, let deferral) = outcome {
                deferral.wait { final in self.resume(job, sequence: sequence, reply: final) }
            }
            guard let next else { return }
            task = next
        }
    }

    private func perform(_ task: Task) -> Outcome {
        let job = task.job
        switch task.work {
        case .decode(let sequence):
            guard let request = job.request else {
                finish(job, Self.lostRequest)
                return .failedDecode(sequence)
            }
            switch handler.decode(request.body, context: request.context) {
            case .run(let decoded, let key):
                return .decoded(sequence, decoded, key: key)
            case .reply(let reply):
                finish(job, reply)
                return .failedDecode(sequence)
            }
        case .execute(let sequence):
            let reply: JobReply?
            if let decoded = job.decoded {
                reply = handler.answer(decoded)
            } else {
                reply = Self.lostRequest
            }
            if let deferral = reply?.deferral {
                return .suspended(sequence, job, deferral)
            }
            // Deliver before releasing the key, so replies for one key leave in order.
            finish(job, reply)
            return .executed(sequence, key: job.key)
        }
    }

    /// Sends the reply of a suspended job and releases its key.
    private func resume(_ job: Job, sequence: JobScheduler.Sequence, reply: JobReply) {
        finish(job, reply)
        let tasks = state.withLock { state -> [Task] in
            state.scheduler.executed(sequence, key: job.key, afterSuspension: true)
            return Self.takeAll(&state)
        }
        for task in tasks { start(task) }
    }

    /// What a job whose request went missing answers (a defect of the pool's, never of the input).
    private static var lostRequest: JobReply {
        JobReply(body: ReplyBody(Array(#"{"v":1,"id":null,"ok":false,"error":{"code":"internal","message":"job lost its request"}}"#.utf8)), op: "unknown", errorCode: "internal")
    }

    private func finish(_ job: Job, _ reply: JobReply?) {
        guard let reply else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let micros = (now > job.arrived ? now - job.arrived : 0) / 1000
        stats.recordRequest(op: reply.op, micros: micros, errorCode: reply.errorCode)
        deliver(OutgoingReply(envelope: job.envelope, body: reply.body))
    }
}

extension WorkerPool where Handler.Context == Void {
    /// Admits a request from a front that has nothing to say of it; false when the pool is full.
    public func submit(envelope: Envelope, body: RequestBody) -> Bool {
        submit(envelope: envelope, body: body, context: ())
    }
}
