/// The ordering rules of the worker pool as a pure state machine (no threads, no clock), so they can be
/// tested on their own.
///
/// Every request gets an arrival sequence number at admission and is decoded in parallel with others
/// (decoding a 10^6-item body takes tens of milliseconds, so it must not happen on the front thread).
/// Its layout key is known only after decoding, so a keyed job joins its key's FIFO only once every
/// earlier request has been decoded (the *watermark*): then no earlier job for the same key can still
/// turn up, and per-key arrival order holds. Jobs without a key run as soon as they are decoded.
/// At most `workers` tasks (decodes and executions) run at once; at most `capacity` jobs are admitted
/// and unfinished, beyond which admission fails (the pool answers `busy`).
struct JobScheduler: Sendable {
    typealias Sequence = UInt64

    /// A unit of work the pool should start now.
    enum Work: Hashable, Sendable {
        case decode(Sequence)
        case execute(Sequence)
    }

    let workers: Int
    let capacity: Int

    private(set) var running = 0
    /// Admitted and not finished.
    private(set) var unfinished = 0
    private var nextSequence: Sequence = 0
    /// Admitted, not yet started decoding, in arrival order.
    private var awaitingDecode: [Sequence] = []
    private var awaitingDecodeHead = 0
    /// Decoded jobs at or above the watermark, with their key (nil: no key).
    private var decodedAhead: [Sequence: String?] = [:]
    /// The lowest sequence not yet decoded.
    private var watermark: Sequence = 0
    /// Per key: ordered jobs not yet finished; the head is running or runnable.
    private var keyQueues: [String: [Sequence]] = [:]
    /// Ready to execute, in the order they became ready.
    private var runnable: [Sequence] = []
    private var runnableHead = 0

    init(workers: Int, capacity: Int) {
        self.workers = max(1, workers)
        self.capacity = max(self.workers, capacity)
    }

    /// Jobs admitted but not running (the queue depth reported by stats).
    var queued: Int { unfinished - running }

    /// Admits a new job; nil when the pool is full.
    mutating func admit() -> Sequence? {
        guard unfinished < capacity else { return nil }
        let sequence = nextSequence
        nextSequence += 1
        unfinished += 1
        awaitingDecode.append(sequence)
        return sequence
    }

    /// Admits a job its admitter has decoded already (the I/O thread decodes small requests to see
    /// whether it may answer them itself): it takes its place in arrival order as if a worker had just
    /// decoded it, without occupying one. nil when the pool is full.
    mutating func admitDecoded(key: String?) -> Sequence? {
        guard unfinished < capacity else { return nil }
        let sequence = nextSequence
        nextSequence += 1
        unfinished += 1
        // `decoded` ends a decode that was counted as running.
        running += 1
        decoded(sequence, key: key, needsExecution: true)
        return sequence
    }

    /// Whether `admit` would refuse.
    var isFull: Bool { unfinished >= capacity }

    /// Whether an op on `key` may run now, outside the pool, without breaking arrival order: every
    /// admitted request is decoded (none can still turn out to be on `key`) and none on `key` is unfinished.
    func isFree(key: String) -> Bool {
        watermark == nextSequence && keyQueues[key] == nil
    }

    /// The next work to start, if a worker is free and something is ready. Executions come first so
    /// that finished decodes drain before more bodies are decoded.
    mutating func nextWork() -> Work? {
        guard running < workers else { return nil }
        if runnableHead < runnable.count {
            let sequence = runnable[runnableHead]
            runnableHead += 1
            compact(&runnable, &runnableHead)
            running += 1
            return .execute(sequence)
        }
        if awaitingDecodeHead < awaitingDecode.count {
            let sequence = awaitingDecode[awaitingDecodeHead]
            awaitingDecodeHead += 1
            compact(&awaitingDecode, &awaitingDecodeHead)
            running += 1
            return .decode(sequence)
        }
        return nil
    }

    /// A decode finished. `key` is the layout key the job works on (nil: none); `needsExecution` is
    /// false when decoding already produced the reply (an error), which finishes the job.
    mutating func decoded(_ sequence: Sequence, key: String?, needsExecution: Bool) {
        running -= 1
        if needsExecution, key == nil {
            runnable.append(sequence)
        }
        if !needsExecution { unfinished -= 1 }
        let entry = needsExecution ? key : nil
        if sequence == watermark {
            // The usual case (decodes finish in arrival order): the job passes the watermark at once,
            // without a round trip through `decodedAhead`.
            pass(watermark, key: entry)
            watermark += 1
            advanceWatermark()
        } else {
            // updateValue, not subscript assignment: assigning nil would remove the entry, not store "no key".
            decodedAhead.updateValue(entry, forKey: sequence)
        }
    }

    /// An execution left its reply waiting on something that finishes later (its change being written to
    /// the journal): the worker is free for other work, while the job keeps its key, and counts as
    /// unfinished, until `executed(_:key:afterSuspension: true)`. Other keys' changes then run meanwhile
    /// and join the same group commit.
    mutating func suspended(_ sequence: Sequence) {
        running -= 1
    }

    /// An execution finished (after `suspended`, when `afterSuspension`).
    mutating func executed(_ sequence: Sequence, key: String?, afterSuspension: Bool = false) {
        if !afterSuspension { running -= 1 }
        unfinished -= 1
        guard let key, let index = keyQueues.index(forKey: key) else { return }
        // In place: one lookup, and the queue's array is not copied.
        let next = Self.popFinished(sequence, from: &keyQueues.values[index])
        if let next {
            runnable.append(next)
        } else {
            keyQueues.remove(at: index)
        }
    }

    /// Removes `sequence` from the head of `queue`; the new head.
    private static func popFinished(_ sequence: Sequence, from queue: inout [Sequence]) -> Sequence? {
        if !queue.isEmpty, queue[0] == sequence { queue.removeFirst() }
        return queue.first
    }

    private mutating func advanceWatermark() {
        while !decodedAhead.isEmpty, let entry = decodedAhead.removeValue(forKey: watermark) {
            pass(watermark, key: entry)
            watermark += 1
        }
    }

    /// A decoded job at the watermark joins its key's FIFO (runnable if it is the head).
    private mutating func pass(_ sequence: Sequence, key: String?) {
        guard let key else { return }
        if Self.append(sequence, to: &keyQueues[key, default: []]) { runnable.append(sequence) }
    }

    /// Appends in place; whether `sequence` is now the head.
    private static func append(_ sequence: Sequence, to queue: inout [Sequence]) -> Bool {
        queue.append(sequence)
        return queue.count == 1
    }

    /// Drops consumed entries once they dominate, keeping FIFO pops O(1) amortised.
    private func compact(_ array: inout [Sequence], _ head: inout Int) {
        if head > 1024, head * 2 > array.count {
            array.removeFirst(head)
            head = 0
        }
    }

    /// Checks the internal invariants (for tests, after every mutation).
    func testOnly_verifyInvariants() -> Bool {
        running >= 0 && running <= workers && unfinished >= running && unfinished <= capacity
            && keyQueues.values.allSatisfy { !$0.isEmpty }
    }
}
