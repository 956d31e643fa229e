import LayoutTestKit
import LayoutEngine

/// Time to prepare one section of N items, single thread and parallel, against the seed port.
struct PrepareBench {
    let plan: BenchPlan
    let layouts: [LayoutKind]
    /// Right to left is left to right plus a mirroring pass: its own lines show what that pass costs.
    var directions: [LayoutDirection] = [.leftToRight]

    enum Mode: String, CaseIterable {
        case serial
        case parallel

        var options: PrepareOptions {
            switch self {
            case .serial: return PrepareOptions(segments: .serial)
            case .parallel: return PrepareOptions()
            }
        }
    }

    func run() {
        for items in plan.prepareSizes {
            let repetitions = plan.repetitions(forItems: items)
            for sizing in Sizing.allCases {
                let inputs = BenchInputs(itemCount: items, sizing: sizing)
                for kind in layouts {
                    for direction in directions {
                        var input = inputs.input(for: kind)
                        input.layoutDirection = direction
                        measure(input, kind: kind, sizing: sizing, repetitions: repetitions)
                    }
                }
            }
        }
    }

    private func measure(_ input: LayoutInput, kind: LayoutKind, sizing: Sizing, repetitions: Repetitions) {
        let items = input.itemCount
        // The baseline has no threads: one figure serves both modes. The seeds have no right to left.
        let baseline: Timing? = SeedLayouts.hasBaseline(kind) && input.layoutDirection == .leftToRight
            ? Stopwatch.measure(repetitions) { () -> SeedCollectionViewLayout? in
                let layout = SeedLayouts.make(for: input)
                layout?.prepare()
                return layout
            }
            : nil
        for mode in Mode.allCases {
            var cells = 0
            let timing: Timing
            do {
                timing = try Stopwatch.measure(repetitions) {
                    let layout = try PreparedLayout.prepare(input, options: mode.options)
                    cells = layout.itemCount
                    return layout
                }
            } catch {
                emit(["bench": "prepare", "layout": .string(kind.rawValue), "sizing": .string(sizing.rawValue),
                      "direction": .string(input.layoutDirection.rawValue),
                      "mode": .string(mode.rawValue), "items": .int(items), "error": .string("\(error)")])
                continue
            }
            emit([
                "bench": "prepare",
                "layout": .string(kind.rawValue),
                "sizing": .string(sizing.rawValue),
                "direction": .string(input.layoutDirection.rawValue),
                "mode": .string(mode.rawValue),
                "items": .int(items),
                "cells": .int(cells),
                "runs": .int(timing.runs),
                "seconds": .figure(timing.seconds),
                "itemsPerSecond": .figure(Double(items) / timing.seconds),
                "baselineSeconds": .figure(baseline?.seconds),
                "baselineItemsPerSecond": .figure(baseline.map { Double(items) / $0.seconds }),
                "ratio": .figure(baseline.map { timing.seconds / $0.seconds }),
            ])
        }
    }
}
