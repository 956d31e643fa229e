import Dispatch
import Synchronization

/// What the worker pool runs for each request: decode the body, then execute it.
public protocol JobHandler: Sendable {
    associatedtype Decoded: Sendable
    /// Decodes a request body (on a worker thread).
    func decode(_ body: RequestBody) -> DecodeOutcome<Decoded>
    /// Runs a decoded request and produces its reply (on a worker thread, one at a time per key).
    func execute(_ request: Decoded) -> JobReply
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
}

/// A reply ready to go back out of the front socket with its request's envelope.
public struct OutgoingReply: Sendable {
    public var envelope: [[UInt8]]
    public var body: ReplyBody
}

/// A bounded Dispatch worker pool: `workers` tasks at once, a bounded queue behind them, ordering by
/// layout key (see `JobScheduler`). Replies go to `deliver`, never to a socket directly.
public final class WorkerPool<Handler: JobHandler>: Sendable {
    private struct Job: Sendable {
        var envelope: [[UInt8]]
        /// nil once decoded: a large request's memory is freed early.
        var body: RequestBody?
        var arrived: ContinuousClock.Instant
        var decoded: Handler.Decoded?
        var key: String?

        /// Keeps the decoded request and drops the body, which is not needed after decoding (a large
        /// request's memory is freed early).
        mutating func store(_ request: Handler.Decoded, key: String?) {
            decoded = request
            body = nil
            self.key = key
        }
    }

    private struct State: ~Copyable {
        var scheduler: JobScheduler
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

    /// Admits a request; false when the pool is full (the caller answers `busy` at once).
    public func submit(envelope: [[UInt8]], body: RequestBody) -> Bool {
        let admitted = state.withLock { state -> Bool in
            guard let sequence = state.scheduler.admit() else { return false }
            state.jobs[sequence] = Job(envelope: envelope, body: body, arrived: .now, decoded: nil, key: nil)
            return true
        }
        if admitted { startAvailableWork() }
        return admitted
    }

    /// Current load, for stats.
    public var usage: PoolUsage {
        state.withLock { state in
            PoolUsage(threads: workers, busy: state.scheduler.running, inFlight: state.scheduler.unfinished, queued: state.scheduler.queued)
        }
    }

    /// True when no admitted request is left unanswered.
    public var isIdle: Bool { state.withLock { $0.scheduler.unfinished == 0 } }

    /// Starts every piece of work the scheduler allows now, each on a Dispatch worker.
    private func startAvailableWork() {
        for (work, job) in takeAvailableWork() {
            queue.async { self.run(work, job) }
        }
    }

    private func takeAvailableWork() -> [(JobScheduler.Work, Job)] {
        state.withLock { state in
            var works: [(JobScheduler.Work, Job)] = []
            while let work = state.scheduler.nextWork() {
                switch work {
                case .decode(let s):
                    // The job stays: its decoded request is stored back into it.
                    if let job = state.jobs[s] { works.append((work, job)) }
                case .execute(let s):
                    // Execution is a job's last step: move it out rather than copy its decoded request.
                    if let job = state.jobs.removeValue(forKey: s) { works.append((work, job)) }
                }
            }
            return works
        }
    }

    /// Runs `work`, then keeps this worker busy with the next available piece of work while there is
    /// one, handing only the surplus to other workers: a request's decode and its execution (or the
    /// next request's decode) then run on the same thread, without a Dispatch hand-off and the thread
    /// wake-up it costs (docs/BENCHMARKS.md, layoutd-bench).
    private func run(_ work: JobScheduler.Work, _ job: Job) {
        var work = work
        var job = job
        while true {
            perform(work, job)
            var available = takeAvailableWork()
            // Any one will do: ordering is the scheduler's business, and whatever is available now
            // may run at once, in any order.
            guard let next = available.popLast() else { return }
            for (work, job) in available {
                queue.async { self.run(work, job) }
            }
            (work, job) = next
        }
    }

    private func perform(_ work: JobScheduler.Work, _ job: Job) {
        switch work {
        case .decode(let sequence):
            switch handler.decode(job.body ?? RequestBody([])) {
            case .run(let decoded, let key):
                state.withLock { state in
                    // One dictionary access, not one per field: each costs a lookup and a copy of the job.
                    state.jobs[sequence]?.store(decoded, key: key)
                    state.scheduler.decoded(sequence, key: key, needsExecution: true)
                }
            case .reply(let reply):
                state.withLock { state in
                    state.jobs[sequence] = nil
                    state.scheduler.decoded(sequence, key: nil, needsExecution: false)
                }
                finish(job, reply)
            }
        case .execute(let sequence):
            let reply: JobReply
            if let decoded = job.decoded {
                reply = handler.execute(decoded)
            } else {
                reply = JobReply(body: ReplyBody(Array(#"{"v":1,"id":null,"ok":false,"error":{"code":"internal","message":"job lost its decoded request"}}"#.utf8)), op: "unknown", errorCode: "internal")
            }
            // Deliver before releasing the key, so replies for one key leave in order.
            finish(job, reply)
            state.withLock { state in
                state.scheduler.executed(sequence, key: job.key)
            }
        }
    }

    private func finish(_ job: Job, _ reply: JobReply) {
        let elapsed = ContinuousClock.now - job.arrived
        let micros = UInt64(max(0, elapsed.components.seconds)) * 1_000_000 + UInt64(max(0, elapsed.components.attoseconds) / 1_000_000_000_000)
        stats.recordRequest(op: reply.op, micros: micros, errorCode: reply.errorCode)
        deliver(OutgoingReply(envelope: job.envelope, body: reply.body))
    }
}
