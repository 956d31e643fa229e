import LayoutTestKit
import LayoutEngine

/// One update (an insert, a delete or a move near the middle) applied to a prepared one-section layout
/// with `PreparedLayout.applying`, beside a full `prepare` of the very input the update produces.
struct IncrementalBench {
    let plan: BenchPlan
    let layouts: [LayoutKind]

    /// The figure asked of `applying` for one update of a 10^6-item layout.
    static let goalSeconds = 0.005

    enum Update: String, CaseIterable {
        case insert
        case delete
        case move

        /// The batch on a section of `count` items; `sizing` decides what an inserted item gives.
        func batch(count: Int, kind: LayoutKind, sizing: Sizing) -> BatchUpdate {
            let middle = ItemPath(section: 0, item: count / 2)
            switch self {
            case .insert: return [.insert(middle, Self.insertedItem(kind: kind, sizing: sizing), id: nil)]
            case .delete: return [.delete(middle)]
            case .move: return [.move(from: middle, to: ItemPath(section: 0, item: count / 2 + count / 4))]
            }
        }

        /// Default sizing stays default (no column is materialised); varied gets a height, and a width
        /// for flow, like the items around it.
        private static func insertedItem(kind: LayoutKind, sizing: Sizing) -> ItemSizing {
            switch sizing {
            case .default: return .unspecified
            case .varied: return ItemSizing(height: 120, width: kind == .flow ? 120 : nil)
            }
        }
    }

    func run() {
        let items = plan.incrementalItems
        for sizing in Sizing.allCases {
            let inputs = BenchInputs(itemCount: items, sizing: sizing)
            for kind in layouts {
                for mode in PrepareBench.Mode.allCases {
                    let layout: PreparedLayout
                    do {
                        layout = try PreparedLayout.prepare(inputs.input(for: kind), options: mode.options)
                    } catch {
                        emit(["bench": "incremental", "layout": .string(kind.rawValue), "sizing": .string(sizing.rawValue),
                              "mode": .string(mode.rawValue), "items": .int(items), "error": .string("\(error)")])
                        continue
                    }
                    for update in Update.allCases {
                        measure(update.batch(count: items, kind: kind, sizing: sizing), update: update, on: layout, kind: kind, sizing: sizing, mode: mode)
                    }
                }
            }
        }
    }

    private func measure(_ batch: BatchUpdate, update: Update, on layout: PreparedLayout, kind: LayoutKind, sizing: Sizing, mode: PrepareBench.Mode) {
        let options = mode.options
        let applyTiming: Timing
        let prepareTiming: Timing
        let identical: Bool
        do {
            let applied = try layout.applying(batch, options: options).layout
            let newInput = applied.input
            let prepared = try PreparedLayout.prepare(newInput, options: options)
            // Like for like: the incremental path must give the frames a full prepare gives.
            identical = applied.sectionFrames == prepared.sectionFrames && applied.contentSize == prepared.contentSize
            applyTiming = try Stopwatch.measure(plan.incrementalRepetitions) { try layout.applying(batch, options: options).layout }
            prepareTiming = try Stopwatch.measure(plan.incrementalRepetitions) { try PreparedLayout.prepare(newInput, options: options) }
        } catch {
            emit(["bench": "incremental", "layout": .string(kind.rawValue), "sizing": .string(sizing.rawValue), "mode": .string(mode.rawValue),
                  "update": .string(update.rawValue), "items": .int(layout.itemCount), "error": .string("\(error)")])
            return
        }
        emit([
            "bench": "incremental",
            "layout": .string(kind.rawValue),
            "sizing": .string(sizing.rawValue),
            "mode": .string(mode.rawValue),
            "update": .string(update.rawValue),
            "items": .int(layout.itemCount),
            "runs": .int(applyTiming.runs),
            "seconds": .figure(applyTiming.seconds),
            "prepareSeconds": .figure(prepareTiming.seconds),
            "ratio": .figure(applyTiming.seconds / prepareTiming.seconds),
            "goalSeconds": .figure(layout.itemCount == 1_000_000 ? Self.goalSeconds : nil),
            "identical": .bool(identical),
        ])
    }
}
