import LayoutTestKit
import LayoutEngine

/// Resident memory of one large layout of each kind, ours against the seed port (each in its own process).
struct MemoryBench {
    let plan: BenchPlan
    let layouts: [LayoutKind]

    func run() {
        let items = plan.memoryItems
        for kind in layouts {
            guard let ours = MemoryProbe.measure(.init(kind: kind, side: .ours, items: items)) else {
                emit(["bench": "memory", "layout": .string(kind.rawValue), "items": .int(items),
                      "error": "no reading (needs Linux /proc, and the probe process must succeed)"])
                continue
            }
            let baseline = SeedLayouts.hasBaseline(kind) ? MemoryProbe.measure(.init(kind: kind, side: .baseline, items: items)) : nil
            emit([
                "bench": "memory",
                "layout": .string(kind.rawValue),
                "items": .int(items),
                "cells": .int(ours.cells),
                "bytes": .int(ours.bytes),
                "peakBytes": .int(ours.peakBytes),
                "frameBytes": .integer(ours.frameBytes),
                "layoutBytes": .integer(ours.layoutBytes),
                "bytesPerItem": .figure(perItem(ours.bytes, items)),
                "frameRatio": .figure(ours.frameBytes.flatMap { $0 > 0 ? Double(ours.bytes) / Double($0) : nil }),
                "baselineBytes": .integer(baseline?.bytes),
                "baselinePeakBytes": .integer(baseline?.peakBytes),
                "baselineBytesPerItem": .figure(baseline.flatMap { perItem($0.bytes, items) }),
                "ratio": .figure(baseline.flatMap { $0.bytes > 0 ? Double(ours.bytes) / Double($0.bytes) : nil }),
            ])
        }
    }

    private func perItem(_ bytes: Int, _ items: Int) -> Double? {
        items > 0 ? Double(bytes) / Double(items) : nil
    }
}
