import LayoutServer
import Synchronization

/// What the broker asks of a worker besides client requests, run on the pool as an op on its key.
enum BrokerJob: Sendable {
    case restore(RestoreJob)
    case snapshot(SnapshotJob)
    /// RELEASE of one key: run in the key's order, so that a request queued before it cannot bring the
    /// key back after it (issue 14, defect 7).
    case release(LayoutKey)
}

/// The desk for the broker's RESTORE, SNAPSHOT and RELEASE.
typealias BrokerJobDesk = JobDesk<BrokerJob>

/// Where the I/O thread leaves what goes with a body for the pool to pick up: the pool hands its handler
/// only a body, so a RESTORE or SNAPSHOT travels as an empty body whose identity the desk recognises,
/// and a direct read as its own body with its conditions filed beside it. No client can forge an entry:
/// the desk knows the objects the I/O thread made, not their bytes.
final class JobDesk<Job: Sendable>: Sendable {
    private let jobs = Mutex<[ObjectIdentifier: Job]>([:])
    /// How many are waiting, read without the lock on every decode.
    private let waiting = Atomic<Int>(0)

    init() {}

    /// The body to submit for `job`.
    func submit(_ job: Job) -> RequestBody {
        let body = RequestBody([])
        file(job, with: body)
        return body
    }

    /// Files `job` under `body`, which the I/O thread then submits to the pool.
    func file(_ job: Job, with body: RequestBody) {
        jobs.withLock { $0[ObjectIdentifier(body)] = job }
        waiting.add(1, ordering: .releasing)
    }

    /// The job `body` stands for, taken off the desk; nil for any other body.
    func take(for body: RequestBody) -> Job? {
        guard waiting.load(ordering: .acquiring) > 0 else { return nil }
        let job = jobs.withLock { $0.removeValue(forKey: ObjectIdentifier(body)) }
        if job != nil { waiting.subtract(1, ordering: .releasing) }
        return job
    }

    /// Forgets a job whose body was never submitted (the pool was full).
    func withdraw(_ body: RequestBody) {
        _ = take(for: body)
    }
}
