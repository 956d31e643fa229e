import LayoutTestKit
import LayoutEngine

/// Before anything is timed: each seed port must place the same frames as our layout and its linear scan
/// must find the same items as our rect query, or the comparison would not be like for like.
struct CheckBench {
    let plan: BenchPlan
    let layouts: [LayoutKind]

    enum Outcome {
        case match
        /// Our layout places nothing yet (a stub), so there is nothing to compare.
        case pending
        case noBaseline
        case mismatch(String)
        case error(String)

        var status: String {
            switch self {
            case .match: return "match"
            case .pending: return "pending"
            case .noBaseline: return "no-baseline"
            case .mismatch: return "mismatch"
            case .error: return "error"
            }
        }

        var detail: BenchValue {
            switch self {
            case .mismatch(let text), .error(let text): return .string(text)
            case .match, .pending, .noBaseline: return .null
            }
        }
    }

    /// Prints one line per layout and sizing; returns false when any layout disagrees with its port.
    func run() -> Bool {
        var agrees = true
        for sizing in Sizing.allCases {
            let inputs = BenchInputs(itemCount: plan.checkItems, sizing: sizing)
            for kind in layouts {
                let outcome = check(inputs.input(for: kind))
                if case .mismatch = outcome { agrees = false }
                if case .error = outcome { agrees = false }
                emit([
                    "bench": "check", "layout": .string(kind.rawValue), "sizing": .string(sizing.rawValue),
                    "items": .int(plan.checkItems), "status": .string(outcome.status), "detail": outcome.detail,
                ])
            }
        }
        return agrees
    }

    private func check(_ input: LayoutInput) -> Outcome {
        guard let seed = SeedLayouts.make(for: input) else { return .noBaseline }
        let ours: PreparedLayout
        do {
            ours = try PreparedLayout.prepare(input)
        } catch {
            return .error("prepare failed: \(error)")
        }
        seed.prepare()
        if ours.itemCount == 0 && !seed.cache.isEmpty { return .pending }
        guard ours.itemCount == seed.cache.count else {
            return .mismatch("\(ours.itemCount) cells, the seed port has \(seed.cache.count)")
        }
        for (item, attributes) in seed.cache.enumerated() {
            guard let cell = ours.cell(item: item, section: 0) else { return .mismatch("no cell \(item)") }
            if !cell.frame.isClose(to: attributes.frame) {
                return .mismatch("item \(item): ours \(cell.frame), seed port \(attributes.frame)")
            }
        }
        var random = SeededGenerator(seed: 0xC4EC)
        for _ in 0..<plan.checkRects {
            let rect = Self.randomRect(in: ours.contentSize, using: &random)
            let found = ours.elements(in: rect).map(\.item)
            let scanned = seed.layoutAttributesForElements(in: rect).map(\.indexPath.item)
            if found != scanned {
                return .mismatch("rect \(rect): ours \(found.count) items, the seed's scan \(scanned.count)")
            }
        }
        return .match
    }

    /// A viewport-sized or a small rect anywhere over the content, at non-round positions so that
    /// last-bit differences between two summation orders cannot decide an overlap.
    static func randomRect(in content: Size, using random: inout SeededGenerator) -> Rect {
        let small = Bool.random(using: &random)
        let width = small ? Double.random(in: 1...120, using: &random) : BenchInputs.bounds.width
        let height = small ? Double.random(in: 1...120, using: &random) : BenchInputs.bounds.height
        let x = small ? Double.random(in: -20...content.width, using: &random) : 0
        let y = Double.random(in: -height...Swift.max(0, content.height), using: &random)
        return Rect(x: x, y: y, width: width, height: height)
    }
}

extension Rect {
    /// Equal up to rounding: the seed ports sum in one running total, we sum by segment.
    func isClose(to other: Rect) -> Bool {
        func close(_ a: Double, _ b: Double) -> Bool {
            Swift.abs(a - b) <= 1e-9 * Swift.max(1, Swift.abs(a), Swift.abs(b))
        }
        return close(x, other.x) && close(y, other.y) && close(width, other.width) && close(height, other.height)
    }
}
