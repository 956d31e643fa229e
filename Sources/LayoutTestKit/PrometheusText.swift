/// Prometheus text exposition (0.0.4), parsed strictly enough to fail on malformed output: for the tests
/// of `/metrics` and the stats socket's `metrics`, of the daemon and of a cluster's roles.
public struct PrometheusText: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `name{labels}` as written → value.
    public private(set) var samples: [String: Double] = [:]
    /// Metric family → `counter`, `gauge`, `histogram`, …
    public private(set) var types: [String: String] = [:]

    /// The body of a 200 response.
    public init(_ response: HTTPProbe.Response) throws(Failure) {
        guard response.status == 200 else { throw Failure(description: "status \(response.status): \(response.body)") }
        try self.init(text: response.body)
    }

    public init(text: String) throws(Failure) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                    throw Failure(description: "bad TYPE line: \(line)")
                }
                guard types.updateValue(String(parts[3]), forKey: String(parts[2])) == nil else { throw Failure(description: "TYPE twice: \(line)") }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) ?? Self.special(line[line.index(after: space)...]) else {
                throw Failure(description: "bad sample line: \(line)")
            }
            let series = String(line[..<space])
            guard series.wholeMatch(of: #/[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})?/#) != nil else {
                throw Failure(description: "bad series: \(series)")
            }
            let family = String(series.prefix { $0 != "{" })
            let known = types.keys.contains { family == $0 || family == $0 + "_bucket" || family == $0 + "_sum" || family == $0 + "_count" }
            guard known else { throw Failure(description: "sample before its TYPE: \(line)") }
            guard samples.updateValue(value, forKey: series) == nil else { throw Failure(description: "sample twice: \(line)") }
        }
    }

    /// The value of `series`, written as the exposition writes it (`name{label="value",…}`).
    public func value(_ series: String) -> Double? { samples[series] }

    /// The series of the family `name` (its samples named exactly `name`, any labels).
    public func series(of name: String) -> [String: Double] {
        samples.filter { $0.key == name || $0.key.hasPrefix(name + "{") }
    }

    private static func special(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default: return nil
        }
    }
}
