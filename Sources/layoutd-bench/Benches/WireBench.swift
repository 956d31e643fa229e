import LayoutTestKit
import Foundation
import LayoutWire

/// LayoutWire's own codec benchmarks (`WireBenchmarks`), printed as they come, then weighed against the
/// codec's goals.
struct WireBench {
    let plan: BenchPlan

    static let decodeGoal = 500.0
    static let encodeGoal = 300.0

    func run(goals: inout Goals) {
        for line in WireBenchmarks.run(items: plan.wireItems, repetitions: plan.wireRepetitions) {
            print(line)
            let bench = Self.string("bench", in: line) ?? "?"
            let format = Self.string("format", in: line) ?? "?"
            let rate = Self.number("megabytesPerSecond", in: line)
            switch bench {
            case "decode": goals.atLeast("wire decode \(format): MB/s", rate, Self.decodeGoal)
            case "encode": goals.atLeast("wire encode \(format): MB/s", rate, Self.encodeGoal)
            default: break
            }
        }
    }

    /// A string member of one of WireBenchmarks' flat lines (their strings carry no escapes).
    private static func string(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: "\"\(name)\":\"")?.upperBound, let end = line[start...].firstIndex(of: "\"") else { return nil }
        return String(line[start..<end])
    }

    private static func number(_ name: String, in line: String) -> Double? {
        guard let start = line.range(of: "\"\(name)\":")?.upperBound else { return nil }
        return Double(line[start...].prefix { "0123456789.eE+-".contains($0) })
    }
}
