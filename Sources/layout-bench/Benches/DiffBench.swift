import LayoutTestKit
import LayoutEngine

/// `Diff.batch` on one section of n ids (10 % deleted, 10 % inserted, 2 % moved), and the whole
/// `applyingDiff` (validation, diff, batch checks and re-layout) on a list layout of the old section.
struct DiffBench {
    let plan: BenchPlan

    /// The figures asked of `Diff.batch`, for these id counts.
    static let goals: [Int: Double] = [100_000: 0.010, 1_000_000: 0.200]

    func run() {
        for ids in plan.diffSizes {
            let repetitions = plan.repetitions(forItems: ids)
            for idType in IDType.allCases {
                let inputs = DiffInputs(ids: ids, idType: idType)
                measureBatch(inputs, repetitions: repetitions)
                measureApplyingDiff(inputs, repetitions: repetitions)
            }
        }
    }

    private func measureBatch(_ inputs: DiffInputs, repetitions: Repetitions) {
        let batch: BatchUpdate
        let timing: Timing
        do {
            batch = try Diff.batch(from: [inputs.old], to: [inputs.new])
            timing = try Stopwatch.measure(repetitions) { try Diff.batch(from: [inputs.old], to: [inputs.new]) }
        } catch {
            emit(["bench": "diff", "api": "Diff.batch", "ids": .int(inputs.idCount), "error": .string("\(error)")])
            return
        }
        let counts = OperationCounts(batch)
        emit([
            "bench": "diff",
            "api": "Diff.batch",
            "ids": .int(inputs.idCount),
            "newIds": .int(inputs.new.items.count),
            "idType": .string(inputs.idType.rawValue),
            "runs": .int(timing.runs),
            "seconds": .figure(timing.seconds),
            "goalSeconds": .figure(Self.goals[inputs.idCount]),
            "moves": .int(counts.moves),
            "deletes": .int(counts.deletes),
            "inserts": .int(counts.inserts),
            "reloads": .int(counts.reloads),
        ])
    }

    private func measureApplyingDiff(_ inputs: DiffInputs, repetitions: Repetitions) {
        let input = LayoutInput(bounds: BenchInputs.bounds, parameters: .defaults(for: .list), sections: [inputs.old])
        let timing: Timing
        let exact: Bool
        let moves: Int
        do {
            let layout = try PreparedLayout.prepare(input)
            let result = try layout.applyingDiff(to: [inputs.new])
            // Like for like: the diff must have produced exactly the new contents.
            exact = result.layout.input.sections == [inputs.new]
            moves = result.batch.moves.count
            timing = try Stopwatch.measure(repetitions) { try layout.applyingDiff(to: [inputs.new]) }
        } catch {
            emit(["bench": "diff", "api": "applyingDiff", "ids": .int(inputs.idCount), "error": .string("\(error)")])
            return
        }
        emit([
            "bench": "diff",
            "api": "applyingDiff",
            "layout": "list",
            "ids": .int(inputs.idCount),
            "newIds": .int(inputs.new.items.count),
            "idType": .string(inputs.idType.rawValue),
            "runs": .int(timing.runs),
            "seconds": .figure(timing.seconds),
            "moves": .int(moves),
            "exact": .bool(exact),
        ])
    }
}

/// How many operations of each kind a batch holds.
struct OperationCounts {
    var deletes = 0
    var inserts = 0
    var moves = 0
    var reloads = 0

    init(_ batch: BatchUpdate) {
        for operation in batch.operations {
            switch operation {
            case .delete: deletes += 1
            case .insert: inserts += 1
            case .move: moves += 1
            case .reload: reloads += 1
            case .deleteSection, .insertSection, .moveSection, .reloadSection: break
            }
        }
    }
}
