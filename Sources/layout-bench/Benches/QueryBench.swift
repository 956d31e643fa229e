import LayoutTestKit
import LayoutEngine

/// Viewport-sized rect queries on a large layout: our index through both query APIs, against the
/// seed's linear scan over its attributes array.
struct QueryBench {
    let plan: BenchPlan
    let layouts: [LayoutKind]

    func run() {
        let inputs = BenchInputs(itemCount: plan.queryItems, sizing: .default)
        for kind in layouts {
            let input = inputs.input(for: kind)
            let ours: PreparedLayout
            do {
                ours = try PreparedLayout.prepare(input)
            } catch {
                emit(["bench": "query", "layout": .string(kind.rawValue), "items": .int(plan.queryItems), "error": .string("\(error)")])
                continue
            }
            let rects = viewports(count: plan.queries, contentHeight: ours.contentSize.height)
            let baseline = measureBaseline(input, rects: Array(rects.prefix(plan.baselineQueries)))

            var hits = 0
            let forEachTiming = Stopwatch.measure(plan.queryRepetitions) { () -> Int in
                hits = 0
                for rect in rects { ours.forEachElement(in: rect) { _ in hits += 1 } }
                return hits
            }
            report(kind, api: "forEachElement(in:)", timing: forEachTiming, hits: hits, baseline: baseline)

            let elementsTiming = Stopwatch.measure(plan.queryRepetitions) { () -> Int in
                hits = 0
                for rect in rects { hits += ours.elements(in: rect).count }
                return hits
            }
            report(kind, api: "elements(in:)", timing: elementsTiming, hits: hits, baseline: baseline)

            // The visible-rect options (no seed counterpart): every header and footer pinned, and a
            // scroll of 30 points with the finger in the middle of the viewport.
            let pinning = Pinning(headers: true, footers: true)
            let pinnedTiming = Stopwatch.measure(plan.queryRepetitions) { () -> Int in
                hits = 0
                for rect in rects { hits += ours.elements(inVisibleRect: rect, pinning: pinning).count }
                return hits
            }
            report(kind, api: "elements(inVisibleRect:) pinned", timing: pinnedTiming, hits: hits, baseline: nil)
            let dynamicsTiming = Stopwatch.measure(plan.queryRepetitions) { () -> Int in
                hits = 0
                for rect in rects {
                    let dynamics = ScrollDynamics(scrollDelta: -30, touch: Point(x: rect.x + rect.width / 2, y: rect.y + rect.height / 2))
                    hits += ours.elements(inVisibleRect: rect, pinning: pinning, dynamics: dynamics).count
                }
                return hits
            }
            report(kind, api: "elements(inVisibleRect:) pinned + dynamics", timing: dynamicsTiming, hits: hits, baseline: nil)
        }
    }

    /// Seconds per query of the seed's scan, or nil without a port.
    private func measureBaseline(_ input: LayoutInput, rects: [Rect]) -> Double? {
        guard let seed = SeedLayouts.make(for: input), !rects.isEmpty else { return nil }
        seed.prepare()
        let timing = Stopwatch.measure(plan.queryRepetitions) { () -> Int in
            var hits = 0
            for rect in rects { hits += seed.layoutAttributesForElements(in: rect).count }
            return hits
        }
        return timing.seconds / Double(rects.count)
    }

    private func report(_ kind: LayoutKind, api: String, timing: Timing, hits: Int, baseline: Double?) {
        let seconds = timing.seconds / Double(plan.queries)
        emit([
            "bench": "query",
            "layout": .string(kind.rawValue),
            "api": .string(api),
            "items": .int(plan.queryItems),
            "viewport": .string("\(Int(BenchInputs.bounds.width))x\(Int(BenchInputs.bounds.height))"),
            "queries": .int(plan.queries),
            "runs": .int(timing.runs),
            "hitsPerQuery": .figure(Double(hits) / Double(plan.queries)),
            "seconds": .figure(seconds),
            "queriesPerSecond": .figure(1 / seconds),
            "baselineSeconds": .figure(baseline),
            "baselineQueriesPerSecond": .figure(baseline.map { 1 / $0 }),
            "ratio": .figure(baseline.map { seconds / $0 }),
        ])
    }

    /// Full-width viewports at seeded random scroll positions over the whole content.
    private func viewports(count: Int, contentHeight: Double) -> [Rect] {
        var random = SeededGenerator(seed: 0x5C2011)
        let viewport = BenchInputs.bounds
        let maxY = Swift.max(0, contentHeight - viewport.height)
        return (0..<count).map { _ in
            Rect(x: 0, y: Double.random(in: 0...maxY, using: &random), width: viewport.width, height: viewport.height)
        }
    }
}
