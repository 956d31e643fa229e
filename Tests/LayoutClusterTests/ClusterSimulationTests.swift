import Foundation
import LayoutServer
import LayoutTestKit
import LayoutWire
import Testing
@testable import LayoutCluster

/// A seeded random walk over the broker core and workers that run the real handler, store and RESTORE
/// code (issue 14's deterministic simulation, first part): clients prepare, change (always with
/// ifVersion) and read keys while workers die, pause and come back with their old copies, and replies
/// are delivered in random order across workers. After every step the invariants hold:
/// - a read answers the version acknowledged last, or one past it when a change's outcome is unknown
///   (`unavailable`), and never goes backwards;
/// - its contents are the replay of the acknowledged changes (every cell's height, in order: each change
///   inserts an item of a height of its own, so two changes at one version differ);
/// - once everything is delivered, at most one connected worker keeps each key.
/// A failing seed prints its history; `LAYOUTD_SIM_SEEDS` runs more seeds than CI's sweep. The broker
/// iterates dictionaries here and there, whose order Swift seeds per process: replay a seed exactly with
/// `SWIFT_DETERMINISTIC_HASHING=1` (as `scripts/simulate` runs them).
struct ClusterSimulationTests {
    static let seeds: Int = ProcessInfo.processInfo.environment["LAYOUTD_SIM_SEEDS"].flatMap(Int.init) ?? 60
    /// The first seed of the sweep (`LAYOUTD_SIM_FIRST_SEED`): sweeps split over processes (`scripts/simulate`).
    static let firstSeed: UInt64 = ProcessInfo.processInfo.environment["LAYOUTD_SIM_FIRST_SEED"].flatMap(UInt64.init) ?? 0
    static let steps = 250
    /// Seeds that once found a defect (each fixed, most with a unit test of its own): run in every sweep,
    /// CI's included, so that none comes back. Those found before the simulation modelled direct reads
    /// keep the walk they were found with (`Simulation.directReads`).
    static let regressionSeeds: [UInt64] = Array(foundBeforeEvictions).sorted() + [2700, 8020, 14062, 28111, 200980, 202810, 218431, 255326, 282887] + foundWithDirectReads
    /// Those found since the simulation modelled direct reads: they keep direct reads in their walk.
    static let foundWithDirectReads: [UInt64] = [173317, 328772]
    /// Those found before the simulation's stores evicted: they keep the stores they were found with.
    static let foundBeforeEvictions: Set<UInt64> = [659, 902, 1290, 1400, 2702, 2842, 3151, 3194, 3199, 5138, 6297, 11392, 17239, 67458, 68675, 276287]
    /// One seed alone (`LAYOUTD_SIM_SEED`), to replay a failure with its whole history.
    static let only: UInt64? = ProcessInfo.processInfo.environment["LAYOUTD_SIM_SEED"].flatMap(UInt64.init)

    @Test func randomFaultsNeverLoseOrRollBackAnAcknowledgedChange() throws {
        var totalSteps = 0
        let sweep = Array(Self.firstSeed..<Self.firstSeed + UInt64(Self.seeds))
        let seeds = Self.only.map { [$0] } ?? (Self.firstSeed == 0 ? Self.regressionSeeds.filter { !sweep.contains($0) } + sweep : sweep)
        let shown = Self.only == nil ? 40 : Int.max
        let started = ContinuousClock.now
        // What the sweep went through, as the last broker process of each seed counted it.
        var standbys = (rebuilt: 0, used: 0, keptThroughDrops: 0)
        var evictions = (believed: 0, stale: 0)
        var formerCopiesTakenBack = 0
        var direct: [String: Int] = [:]
        for seed in seeds {
            var simulation = Simulation(seed: seed)
            for _ in 0..<Self.steps {
                simulation.step()
                totalSteps += 1
                if let problem = simulation.problem {
                    Issue.record("seed \(seed): \(problem)\nhistory:\n\(simulation.history.suffix(shown).joined(separator: "\n"))")
                    return
                }
            }
            simulation.settle()
            if let problem = simulation.problem {
                Issue.record("seed \(seed) at rest: \(problem)\nhistory:\n\(simulation.history.suffix(shown).joined(separator: "\n"))")
                return
            }
            let counters = simulation.cluster.core.counters
            standbys.rebuilt += counters.standbyRebuilds
            standbys.used += counters.standbysUsed
            standbys.keptThroughDrops += counters.keysKeptThroughDrops
            evictions.believed += counters.evictions
            evictions.stale += counters.staleEvictions
            formerCopiesTakenBack += counters.formerCopiesTakenBack
            direct.merge(simulation.directReadOutcomes, uniquingKeysWith: +)
            direct["fences", default: 0] += counters.fences
        }
        #expect(totalSteps == seeds.count * Self.steps)
        // The sweep's figures (`scripts/simulate` gathers them).
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(#"{"bench": "simulation", "firstSeed": \#(Self.firstSeed), "seeds": \#(seeds.count), "steps": \#(totalSteps), "seconds": \#((seconds * 1000).rounded() / 1000), "stepsPerSecond": \#(Int(Double(totalSteps) / max(seconds, 1e-9))), "standbyRebuilds": \#(standbys.rebuilt), "standbysUsed": \#(standbys.used), "keysKeptThroughDrops": \#(standbys.keptThroughDrops), "evictions": \#(evictions.believed), "staleEvictions": \#(evictions.stale), "formerCopiesTakenBack": \#(formerCopiesTakenBack), \#(Self.directFigures(direct))}"#)
    }
}

extension ClusterSimulationTests {
    /// The sweep's direct-read figures, as JSON members: reads answered `ok`, `behind`, `moved` (apart:
    /// for a lapsed lease, for a fence), and FENCEs the brokers sent.
    static func directFigures(_ counts: [String: Int]) -> String {
        ["ok", "behind", "moved", "leaseLapsed", "fenced", "fences"].map { name in
            let key = name == "fences" ? "fences" : "directReads" + name.prefix(1).uppercased() + name.dropFirst()
            return "\"\(key)\": \(counts[name] ?? 0)"
        }.joined(separator: ", ")
    }
}

/// What a client knows of one key: the heights of the acknowledged items in order, the version, and a
/// change whose outcome is unknown.
struct KeyModel {
    var heights: [Int]
    var version: Int
    /// The heights at each acknowledged version: a read issued earlier may answer an earlier one.
    var states: [Int: [Int]] = [:]
    var pending: (envelope: [[UInt8]], insert: Insert, fromVersion: Int)?
    var unknown: (insert: Insert, fromVersion: Int)?
    var highestSeen = 0

    struct Insert: CustomStringConvertible {
        var id: String
        var height: Int
        var description: String { "\(id) (\(height))" }
    }

    /// A change acknowledged (or found applied) at `newVersion`: the item inserted first.
    mutating func apply(_ insert: Insert, at newVersion: Int) {
        heights.insert(insert.height, at: 0)
        version = newVersion
        states[newVersion] = heights
    }
}
