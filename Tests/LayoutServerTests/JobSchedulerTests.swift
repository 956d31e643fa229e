import Testing
@testable import LayoutServer

@Suite struct JobSchedulerTests {
    @Test func admitsUpToCapacityThenRefuses() {
        var scheduler = JobScheduler(workers: 2, capacity: 3)
        #expect(scheduler.admit() != nil)
        #expect(scheduler.admit() != nil)
        #expect(scheduler.admit() != nil)
        #expect(scheduler.admit() == nil)
        #expect(scheduler.testOnly_verifyInvariants())
    }

    @Test func runsAtMostWorkersAtOnce() {
        var scheduler = JobScheduler(workers: 2, capacity: 10)
        for _ in 0..<5 { _ = scheduler.admit() }
        #expect(scheduler.nextWork() == .decode(0))
        #expect(scheduler.nextWork() == .decode(1))
        #expect(scheduler.nextWork() == nil)
        #expect(scheduler.queued == 3)
    }

    @Test func sameKeyRunsInArrivalOrderEvenWhenDecodedOutOfOrder() {
        var scheduler = JobScheduler(workers: 4, capacity: 10)
        let first = scheduler.admit()!
        let second = scheduler.admit()!
        #expect(scheduler.nextWork() == .decode(first))
        #expect(scheduler.nextWork() == .decode(second))
        // The second finishes decoding first: it must wait, because the first could target the same key.
        scheduler.decoded(second, key: "feed", needsExecution: true)
        #expect(scheduler.nextWork() == nil)
        scheduler.decoded(first, key: "feed", needsExecution: true)
        #expect(scheduler.nextWork() == .execute(first))
        // Only one job per key at a time.
        #expect(scheduler.nextWork() == nil)
        scheduler.executed(first, key: "feed")
        #expect(scheduler.nextWork() == .execute(second))
        scheduler.executed(second, key: "feed")
        #expect(scheduler.unfinished == 0)
        #expect(scheduler.testOnly_verifyInvariants())
    }

    @Test func differentKeysRunInParallel() {
        var scheduler = JobScheduler(workers: 4, capacity: 10)
        let a = scheduler.admit()!
        let b = scheduler.admit()!
        _ = scheduler.nextWork()
        _ = scheduler.nextWork()
        scheduler.decoded(a, key: "a", needsExecution: true)
        scheduler.decoded(b, key: "b", needsExecution: true)
        #expect(scheduler.nextWork() == .execute(a))
        #expect(scheduler.nextWork() == .execute(b))
    }

    @Test func keylessJobsDoNotWaitForEarlierDecodes() {
        var scheduler = JobScheduler(workers: 4, capacity: 10)
        let slow = scheduler.admit()!
        let ping = scheduler.admit()!
        _ = scheduler.nextWork()
        _ = scheduler.nextWork()
        scheduler.decoded(ping, key: nil, needsExecution: true)
        #expect(scheduler.nextWork() == .execute(ping))
        scheduler.executed(ping, key: nil)
        scheduler.decoded(slow, key: "k", needsExecution: true)
        #expect(scheduler.nextWork() == .execute(slow))
    }

    @Test func decodeErrorsFinishWithoutExecutionAndUnblockLaterJobs() {
        var scheduler = JobScheduler(workers: 4, capacity: 10)
        let bad = scheduler.admit()!
        let good = scheduler.admit()!
        _ = scheduler.nextWork()
        _ = scheduler.nextWork()
        scheduler.decoded(good, key: "k", needsExecution: true)
        scheduler.decoded(bad, key: nil, needsExecution: false)
        #expect(scheduler.nextWork() == .execute(good))
        scheduler.executed(good, key: "k")
        #expect(scheduler.unfinished == 0)
    }

    @Test func randomScheduleKeepsPerKeyOrder() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var scheduler = JobScheduler(workers: 3, capacity: 40)
            var keys: [UInt64: String] = [:]
            var started: [String: [UInt64]] = [:]
            var runningWork: [JobScheduler.Work] = []
            var admitted = 0
            while admitted < 30 || scheduler.unfinished > 0 {
                if admitted < 30, Bool.random(using: &rng), let s = scheduler.admit() {
                    keys[s] = ["a", "b", "c"].randomElement(using: &rng)
                    admitted += 1
                }
                while let work = scheduler.nextWork() { runningWork.append(work) }
                guard !runningWork.isEmpty else { continue }
                let work = runningWork.remove(at: Int.random(in: 0..<runningWork.count, using: &rng))
                switch work {
                case .decode(let s): scheduler.decoded(s, key: keys[s], needsExecution: true)
                case .execute(let s):
                    let key = keys[s]!
                    started[key, default: []].append(s)
                    scheduler.executed(s, key: key)
                }
                #expect(scheduler.testOnly_verifyInvariants())
            }
            for order in started.values { #expect(order == order.sorted()) }
            #expect(started.values.reduce(0) { $0 + $1.count } == 30)
        }
    }
}

/// Jobs decoded by the thread that admits them (`admitDecoded`), and whether a key is free to run outside the pool.
@Suite struct JobSchedulerDecodedAdmissionTests {
    @Test func aJobAdmittedDecodedWaitsBehindAnEarlierUndecodedOne() {
        var scheduler = JobScheduler(workers: 2, capacity: 10)
        let first = scheduler.admit()!
        #expect(scheduler.nextWork() == .decode(first))
        let second = scheduler.admitDecoded(key: "feed")!
        // The first could still turn out to be on "feed".
        #expect(scheduler.nextWork() == nil)
        #expect(!scheduler.isFree(key: "other"))
        scheduler.decoded(first, key: "feed", needsExecution: true)
        #expect(scheduler.nextWork() == .execute(first))
        #expect(scheduler.nextWork() == nil)
        #expect(!scheduler.isFree(key: "feed"))
        #expect(scheduler.isFree(key: "other"))
        scheduler.executed(first, key: "feed")
        #expect(scheduler.nextWork() == .execute(second))
        scheduler.executed(second, key: "feed")
        #expect(scheduler.isFree(key: "feed"))
        #expect(scheduler.unfinished == 0)
        #expect(scheduler.testOnly_verifyInvariants())
    }

    @Test func admittingDecodedCountsTowardsTheBoundAndNeverAsARunningTask() {
        var scheduler = JobScheduler(workers: 1, capacity: 2)
        let keyless = scheduler.admitDecoded(key: nil)!
        #expect(scheduler.running == 0)
        #expect(scheduler.admitDecoded(key: "a") != nil)
        #expect(scheduler.isFull)
        #expect(scheduler.admitDecoded(key: "b") == nil, "full at the bound")
        #expect(scheduler.admit() == nil)
        #expect(scheduler.nextWork() == .execute(keyless))
        #expect(scheduler.testOnly_verifyInvariants())
    }

    @Test func aSuspendedJobKeepsItsKeyBusy() {
        var scheduler = JobScheduler(workers: 1, capacity: 4)
        let change = scheduler.admitDecoded(key: "feed")!
        #expect(scheduler.nextWork() == .execute(change))
        scheduler.suspended(change)
        #expect(!scheduler.isFree(key: "feed"))
        scheduler.executed(change, key: "feed", afterSuspension: true)
        #expect(scheduler.isFree(key: "feed"))
    }
}
