import LayoutTestKit

/// The goals of issue 7, collected as benchmarks finish and printed last.
struct Goals {
    private struct Entry {
        var name: String
        var value: Double?
        var target: String
        var met: Bool
    }

    private var entries: [Entry] = []

    mutating func atLeast(_ name: String, _ value: Double?, _ minimum: Double) {
        entries.append(Entry(name: name, value: value, target: ">= \(minimum)", met: value.map { $0 >= minimum } ?? false))
    }

    mutating func atMost(_ name: String, _ value: Double?, _ maximum: Double) {
        entries.append(Entry(name: name, value: value, target: "<= \(maximum)", met: value.map { $0 <= maximum } ?? false))
    }

    func emitAll() {
        for entry in entries {
            emit(["bench": "goal", "goal": .string(entry.name), "value": .figure(entry.value), "target": .string(entry.target), "met": .bool(entry.met)])
        }
        emit(["bench": "goals", "met": .int(entries.filter(\.met).count), "missed": .int(entries.filter { !$0.met }.count)])
    }
}

/// A benchmark that could not run as intended.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
