/// The goals a run is weighed against, collected as benchmarks finish and printed last by the harness
/// (`BenchHarness.Closing.loadAndGoals`). Goals are reported, not enforced: a missed one does not fail a run.
public struct Goals: Sendable {
    private struct Entry: Sendable {
        var name: String
        var value: Double?
        var target: String
        var met: Bool
    }

    private var entries: [Entry] = []

    public init() {}

    /// Records `value` against `value >= minimum`; a missing value misses it.
    public mutating func atLeast(_ name: String, _ value: Double?, _ minimum: Double) {
        entries.append(Entry(name: name, value: value, target: ">= \(minimum.thresholdText)", met: value.map { $0 >= minimum } ?? false))
    }

    /// Records `value` against `value <= maximum`; a missing value misses it.
    public mutating func atMost(_ name: String, _ value: Double?, _ maximum: Double) {
        entries.append(Entry(name: name, value: value, target: "<= \(maximum.thresholdText)", met: value.map { $0 <= maximum } ?? false))
    }

    /// One `goal` line per goal, then a `goals` line with the totals.
    func emitAll(lineKey: String) {
        for entry in entries {
            emit([
                (lineKey, "goal"), ("goal", .string(entry.name)), ("value", .figure(entry.value)),
                ("target", .string(entry.target)), ("met", .bool(entry.met)),
            ])
        }
        emit([(lineKey, "goals"), ("met", .int(entries.filter(\.met).count)), ("missed", .int(entries.filter { !$0.met }.count))])
    }
}

extension Double {
    /// Short text for a goal threshold: `0.5`, `300`.
    fileprivate var thresholdText: String {
        rounded() == self ? String(Int(self)) : String(self)
    }
}
