import Testing
@testable import LayoutCluster

@Suite struct RendezvousTests {
    private let keys = (0..<4000).map { "layout-\($0)" }

    private func owners(_ workers: [String]) -> [String: String] {
        let seeds = workers.map(Rendezvous.seed(forWorker:))
        var owners: [String: String] = [:]
        for key in keys {
            guard let index = Rendezvous.winner(keyHash: Rendezvous.hash(key), seeds: seeds) else { continue }
            owners[key] = workers[index]
        }
        return owners
    }

    @Test func keysSpreadEvenlyOverWorkers() {
        let workers = ["worker-0", "worker-1", "worker-2"]
        let counts = Dictionary(grouping: owners(workers).values, by: { $0 }).mapValues(\.count)
        #expect(counts.count == 3)
        // 4000 keys over 3 workers: each within 20 % of a third.
        for (_, count) in counts { #expect(abs(count - 4000 / 3) < 4000 / 15) }
    }

    @Test func aJoiningWorkerTakesAboutItsShareAndNothingElseMoves() {
        let before = owners(["worker-0", "worker-1", "worker-2"])
        let after = owners(["worker-0", "worker-1", "worker-2", "worker-3"])
        let moved = keys.filter { before[$0] != after[$0] }
        #expect(moved.allSatisfy { after[$0] == "worker-3" })
        #expect(Double(moved.count) / Double(keys.count) > 0.2 && Double(moved.count) / Double(keys.count) < 0.3)
    }

    @Test func aLeavingWorkersKeysGoElsewhereAndOnlyThose() {
        let before = owners(["worker-0", "worker-1", "worker-2"])
        let after = owners(["worker-0", "worker-2"])
        for key in keys {
            if before[key] == "worker-1" {
                #expect(after[key] != "worker-1")
            } else {
                #expect(after[key] == before[key])
            }
        }
    }

    @Test func noWorkersNoWinner() {
        #expect(Rendezvous.winner(keyHash: Rendezvous.hash("k"), seeds: []) == nil)
        #expect(Rendezvous.hash("") == 0xcbf2_9ce4_8422_2325)
    }
}
