import LayoutTestKit
/// The goals a run is measured against, collected as benchmarks finish and printed last.
struct Goals {
    private struct Entry {
        var name: String
        var value: Double?
        var target: String
        var met: Bool
    }

    private var entries: [Entry] = []

    /// Records `value` against `value >= minimum`.
    mutating func atLeast(_ name: String, _ value: Double?, _ minimum: Double, unit: String = "") {
        entries.append(Entry(name: name, value: value, target: ">= \(minimum.formatted)\(unit)", met: value.map { $0 >= minimum } ?? false))
    }

    /// Records `value` against `value <= maximum`.
    mutating func atMost(_ name: String, _ value: Double?, _ maximum: Double, unit: String = "") {
        entries.append(Entry(name: name, value: value, target: "<= \(maximum.formatted)\(unit)", met: value.map { $0 <= maximum } ?? false))
    }

    /// One `goal` line per goal, then a `goals` line with the totals.
    func emitAll() {
        for entry in entries {
            emit([
                "bench": "goal", "goal": .string(entry.name), "value": .figure(entry.value),
                "target": .string(entry.target), "met": .bool(entry.met),
            ])
        }
        emit(["bench": "goals", "met": .int(entries.filter(\.met).count), "missed": .int(entries.filter { !$0.met }.count)])
    }
}

extension Double {
    /// Short text for a goal threshold: `0.5`, `300`.
    fileprivate var formatted: String {
        rounded() == self ? String(Int(self)) : String(self)
    }
}
