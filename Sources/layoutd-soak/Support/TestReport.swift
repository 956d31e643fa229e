import LayoutTestKit

/// One test's JSON line: its figures in the order they were added, whether it passed, and why not.
struct TestReport {
    let test: SoakTest
    private var fields: [(String, BenchValue)] = []
    private(set) var failures: [String] = []
    private let started = ContinuousClock.now

    init(_ test: SoakTest) {
        self.test = test
    }

    var passed: Bool { failures.isEmpty }

    mutating func add(_ key: String, _ value: BenchValue) {
        fields.append((key, value))
    }

    mutating func add(_ key: String, _ value: Int) {
        fields.append((key, .int(value)))
    }

    /// A measured figure, four significant digits.
    mutating func add(_ key: String, figure: Double?) {
        fields.append((key, .figure(figure)))
    }

    /// Bytes as MiB, four significant digits.
    mutating func add(_ key: String, mebibytes bytes: Int?) {
        fields.append((key, .figure(bytes.map { Double($0) / 1_048_576 })))
    }

    /// Records a failure unless `condition` holds.
    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { failures.append(message()) }
    }

    mutating func fail(_ message: String) {
        failures.append(message)
    }

    /// Prints the line.
    func emit() {
        var line: [(String, BenchValue)] = [("test", .string(test.rawValue)), ("passed", .bool(passed))]
        line += fields
        line.append(("seconds", .figure((ContinuousClock.now - started).seconds)))
        if !failures.isEmpty { line.append(("failures", .string(failures.joined(separator: "; ")))) }
        LayoutTestKit.emit(line)
    }
}

/// Latency figures of a set of samples in microseconds: p50, p99, max.
struct LatencySummary {
    var p50: Double
    var p99: Double
    var max: Double
    var count: Int

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        p50 = Statistics.percentile(50, of: sorted)
        p99 = Statistics.percentile(99, of: sorted)
        max = sorted.last ?? .nan
        count = sorted.count
    }
}
