import LayoutTestKit
import Testing
@testable import LayoutCluster

/// Least-loaded routing's index, checked against a look at every worker after each step of random
/// traffic: requests out and back, workers joining and leaving, credits of different sizes.
@Suite struct LoadIndexTests {
    private func worker(_ number: Int, credit: Int) -> WorkerRecord {
        WorkerRecord(
            number: number, routingID: [UInt8(number)], ready: ReadyInfo(workerID: "w\(number)", credit: credit, threads: 1, keys: []),
            fileDescriptor: nil, address: "", now: 0
        )
    }

    @Test(arguments: 0..<6)
    func theChosenWorkerHasTheFewestOutstandingAmongThoseWithCredit(seed: UInt64) {
        var random = SeededGenerator(seed: 77 + seed)
        let index = LoadIndex()
        var live: [WorkerRecord] = []
        var departed: [WorkerRecord] = []
        var next = 0
        func join() {
            let joining = worker(next, credit: Int.random(in: 1...4, using: &random))
            next += 1
            joining.loadIndex = index
            index.insert(joining)
            live.append(joining)
        }
        for _ in 0..<3 { join() }
        for _ in 0..<2_000 {
            switch Int.random(in: 0..<20, using: &random) {
            case 0:
                join()
            case 1 where live.count > 1:
                let leaving = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                index.remove(leaving)
                leaving.loadIndex = nil
                // A departed worker's count still changes (its requests are settled): no effect.
                leaving.inFlight = 0
                departed.append(leaving)
            case 2...9:
                let busy = live.filter { $0.inFlight > 0 }
                busy.randomElement(using: &random)?.inFlight -= 1
            default:
                // A request out to the worker the index chooses, as the broker routes one.
                let chosen = index.leastLoaded()
                let withCredit = live.filter(\.hasCredit)
                if let chosen {
                    #expect(live.contains { $0 === chosen }, "a worker not live was chosen")
                    #expect(chosen.hasCredit)
                    #expect(chosen.inFlight == withCredit.map(\.inFlight).min())
                    chosen.inFlight += 1
                } else {
                    #expect(withCredit.isEmpty)
                }
            }
        }
        #expect(departed.allSatisfy { $0.loadSlot == nil })
    }

    @Test func aTrickleOfRequestsStaysWithTheWorkerThatServedLast() {
        let index = LoadIndex()
        let workers = (0..<8).map { worker($0, credit: 4) }
        for member in workers {
            member.loadIndex = index
            index.insert(member)
        }
        let first = index.leastLoaded()
        for _ in 0..<20 {
            let chosen = index.leastLoaded()
            #expect(chosen === first)
            chosen?.inFlight += 1
            chosen?.inFlight -= 1
        }
        // Two outstanding at once go to two workers: the second one is the least loaded then.
        let one = index.leastLoaded()
        one?.inFlight += 1
        let two = index.leastLoaded()
        #expect(two !== one)
        #expect(two?.inFlight == 0)
    }
}
