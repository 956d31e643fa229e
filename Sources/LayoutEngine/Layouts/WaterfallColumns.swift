/// The running heights of a waterfall section's columns: picks the shortest one for each item.
protocol WaterfallColumnHeights {
    /// Puts a cell `height` tall on the shortest column (ties: the lowest index) and returns that
    /// column and the y it had before.
    mutating func placeOnShortest(height: Double) -> (column: Int, y: Double)
    /// The tallest column's height.
    var tallest: Double { get }
    /// Saves every column's height, by column, as the checkpoint before `item`.
    func save(into checkpoints: inout SectionCheckpoints, before item: Int)
}

/// Two columns held in registers rather than memory: the default waterfall. The same pick as the scan:
/// the right column only when it is strictly shorter.
struct PairedWaterfallColumns: WaterfallColumnHeights {
    var left: Double
    var right: Double

    @inline(__always)
    mutating func placeOnShortest(height: Double) -> (column: Int, y: Double) {
        if right < left {
            let y = right
            right = y + height
            return (1, y)
        }
        let y = left
        left = y + height
        return (0, y)
    }

    var tallest: Double { Swift.max(left, right) }

    func save(into checkpoints: inout SectionCheckpoints, before item: Int) {
        checkpoints.append(item: item, state: [left, right])
    }
}

/// A linear scan: the fastest pick for the few columns a waterfall usually has.
struct ScannedWaterfallColumns: WaterfallColumnHeights {
    /// One running height per column; at least one.
    let heights: UnsafeMutableBufferPointer<Double>

    @inline(__always)
    mutating func placeOnShortest(height: Double) -> (column: Int, y: Double) {
        var shortest = 0
        var y = heights[0]
        for column in 1..<heights.count where heights[column] < y {
            shortest = column
            y = heights[column]
        }
        heights[shortest] = y + height
        return (shortest, y)
    }

    var tallest: Double { heights.max() ?? 0 }

    func save(into checkpoints: inout SectionCheckpoints, before item: Int) {
        checkpoints.append(item: item, state: heights)
    }
}

/// A binary min-heap ordered by (height, column): O(log columns) per item for many columns, and the
/// same choice as the scan, since the lexicographic minimum is the shortest column with the lowest index.
struct HeapedWaterfallColumns: WaterfallColumnHeights {
    /// One running height per column; at least one.
    let heights: UnsafeMutableBufferPointer<Double>
    /// Column indices in heap order.
    let heap: UnsafeMutableBufferPointer<Int>

    /// Every column starts at its value in `heights`. Equal heights (a fresh section) are already a heap
    /// in index order; any others (a resumed one) are put in heap order. Either way the root is the least
    /// (height, column), which alone decides every placement, so how the rest is arranged does not matter.
    init(heights: UnsafeMutableBufferPointer<Double>, heap: UnsafeMutableBufferPointer<Int>) {
        self.heights = heights
        self.heap = heap
        for slot in heap.indices { heap[slot] = slot }
        for slot in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(from: slot) }
    }

    @inline(__always)
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let ya = heights[a]
        let yb = heights[b]
        return ya < yb || (ya == yb && a < b)
    }

    mutating func placeOnShortest(height: Double) -> (column: Int, y: Double) {
        let column = heap[0]
        let y = heights[column]
        heights[column] = y + height
        // The root's column grew.
        siftDown(from: 0)
        return (column, y)
    }

    /// Moves the column at `start` down until neither child precedes it.
    @inline(__always)
    private func siftDown(from start: Int) {
        let count = heap.count
        let moving = heap[start]
        var slot = start
        while true {
            let left = 2 * slot + 1
            guard left < count else { break }
            var child = left
            let right = left + 1
            if right < count, precedes(heap[right], heap[left]) { child = right }
            guard precedes(heap[child], moving) else { break }
            heap[slot] = heap[child]
            slot = child
        }
        heap[slot] = moving
    }

    var tallest: Double { heights.max() ?? 0 }

    func save(into checkpoints: inout SectionCheckpoints, before item: Int) {
        checkpoints.append(item: item, state: heights)
    }
}
