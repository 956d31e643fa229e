/// Loop states a sequential layout saved while placing a section, so that a batch can resume placing it
/// from the last checkpoint before its first change rather than from the section's top.
///
/// Only layouts whose running state cannot be read back from the frames keep checkpoints (flow, waterfall).
/// A checkpoint is taken at positions that depend on the items before it alone, so a full prepare and a
/// resumed one keep the very same checkpoints. Flat storage: checkpoint `n` is the state before item
/// `items[n]`, `width` values at `values[n * width ..< (n + 1) * width]`.
struct SectionCheckpoints: Hashable, Sendable {
    /// The item each checkpoint comes before, ascending.
    private(set) var items: [Int] = []
    private(set) var values: [Double] = []
    /// Values per checkpoint.
    let width: Int

    init(width: Int) {
        self.width = width
    }

    /// No checkpoints: a layout that needs none, or one that could not keep them for this section.
    static let none = SectionCheckpoints(width: 0)

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }

    /// Checkpoint `n`'s state.
    func state(at n: Int) -> ArraySlice<Double> {
        values[(n * width)..<((n + 1) * width)]
    }

    /// The last checkpoint whose item is below `limit`, if any.
    func last(below limit: Int) -> Int? {
        var low = 0
        var high = items.count
        // The first checkpoint whose item is >= limit.
        while low < high {
            let mid = (low + high) / 2
            if items[mid] < limit { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? low - 1 : nil
    }

    /// Adds a checkpoint after every existing one; `state` must hold `width` values.
    mutating func append(item: Int, state: some Collection<Double>) {
        items.append(item)
        values.append(contentsOf: state)
    }

    /// Adds a checkpoint whose state is `state` followed by `last`; together they must be `width` values.
    mutating func append(item: Int, state: some Collection<Double>, then last: Double) {
        items.append(item)
        values.append(contentsOf: state)
        values.append(last)
    }

    /// The checkpoints whose item is below `limit`.
    func prefix(below limit: Int) -> SectionCheckpoints {
        var kept = SectionCheckpoints(width: width)
        let count = last(below: limit).map { $0 + 1 } ?? 0
        kept.items = Array(items[..<count])
        kept.values = Array(values[..<(count * width)])
        return kept
    }

    /// Bytes held by the checkpoints.
    var byteCount: Int { items.count * MemoryLayout<Int>.stride + values.count * MemoryLayout<Double>.stride }
}
