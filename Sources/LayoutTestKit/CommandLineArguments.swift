/// A command-line mistake in one of the benches or the soak suite, said in one line (`BenchHarness`
/// prints it with the usage and exits 64).
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

extension ArraySlice where Element == String {
    /// The comma-separated raw values that follow `flag` (`--only roundtrip,job`), in the type's own
    /// order: for `BenchHarness`'s `--only` and the executables' own list flags (`--layout`).
    public mutating func popList<Value: RawRepresentable & CaseIterable>(
        after flag: String, of type: Value.Type
    ) throws(UsageError) -> [Value] where Value.RawValue == String {
        guard let text = popFirst() else { throw UsageError(description: "\(flag) needs a value") }
        var chosen: [String] = []
        for name in text.split(separator: ",") {
            guard Value(rawValue: String(name)) != nil else {
                throw UsageError(description: "\(flag): unknown value \(name)")
            }
            chosen.append(String(name))
        }
        guard !chosen.isEmpty else { throw UsageError(description: "\(flag) needs a value") }
        return Value.allCases.filter { chosen.contains($0.rawValue) }
    }
}
