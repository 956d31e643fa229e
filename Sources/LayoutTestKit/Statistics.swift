/// Order statistics of measured samples.
public enum Statistics {
    public static func median(_ values: [Double]) -> Double {
        percentile(50, of: values.sorted())
    }

    /// The `p`-th percentile of already sorted `values` (nearest rank); NaN when there are none.
    public static func percentile(_ p: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, rank - 1))]
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}

/// Consumes a value where the optimiser cannot see it.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
