/// The live workers filed by how many requests each has outstanding, so that least-loaded routing
/// finds its worker without looking at every worker: the broker's cost per request must not grow with
/// the number of workers (issue 7: 64 registered workers within 10 % of one).
///
/// A bucket per outstanding count; a worker moves between neighbouring buckets as requests go out and
/// replies come back (`WorkerRecord.inFlight` tells the index through `moved`). The lowest non-empty
/// bucket is kept, and it changes by at most one bucket per move, so every operation is O(1) but the
/// rare walk past workers without credit. Within a bucket the worker that arrived last is taken first:
/// under a trickle of requests the same worker, whose threads are awake and caches warm, keeps serving.
final class LoadIndex {
    private var buckets: [[WorkerRecord]] = []
    /// No bucket below this one holds a worker (`buckets.count` when none does).
    private var lowest = 0

    /// Files `worker` under its current count; a worker filed already is left where it is.
    func insert(_ worker: WorkerRecord) {
        guard worker.loadSlot == nil else { return }
        file(worker, under: worker.inFlight)
    }

    func remove(_ worker: WorkerRecord) {
        guard let slot = worker.loadSlot else { return }
        unfile(worker, at: slot)
    }

    /// `worker`'s count changed from `old`: refile it (only a filed worker is).
    func moved(_ worker: WorkerRecord, from old: Int) {
        guard let slot = worker.loadSlot, worker.inFlight != old else { return }
        unfile(worker, at: slot)
        file(worker, under: worker.inFlight)
    }

    /// The filed worker with the fewest outstanding that has credit left; nil when none has.
    func leastLoaded() -> WorkerRecord? {
        var bucket = lowest
        while bucket < buckets.count {
            // Usually the last worker of the lowest bucket: the walk goes further only when workers
            // there are out of credit (a worker whose credit is below this count).
            for worker in buckets[bucket].reversed() where worker.hasCredit { return worker }
            bucket += 1
        }
        return nil
    }

    private func file(_ worker: WorkerRecord, under count: Int) {
        let bucket = max(0, count)
        while buckets.count <= bucket { buckets.append([]) }
        worker.loadSlot = (bucket, buckets[bucket].count)
        buckets[bucket].append(worker)
        lowest = min(lowest, bucket)
    }

    private func unfile(_ worker: WorkerRecord, at slot: (bucket: Int, index: Int)) {
        // Swap-remove: the bucket's last worker takes the hole (the order within a bucket is a
        // preference, not a rule).
        let last = buckets[slot.bucket].removeLast()
        if last !== worker {
            buckets[slot.bucket][slot.index] = last
            last.loadSlot = slot
        }
        worker.loadSlot = nil
        while lowest < buckets.count, buckets[lowest].isEmpty { lowest += 1 }
    }
}
