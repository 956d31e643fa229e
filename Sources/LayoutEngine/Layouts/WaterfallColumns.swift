/// The running heights of a waterfall section's columns: picks the shortest one for each item.
///
/// A column's height is where its next slot goes: its last slot's bottom plus `interitemSpacing`.
protocol WaterfallColumnHeights {
    /// Puts a slot on the shortest column (ties: the lowest index, or the highest with `lastWins`),
    /// grows that column by `advance` (the slot's height plus the spacing) and returns the column and
    /// the y it had before.
    mutating func placeOnShortest(advance: Double) -> (column: Int, y: Double)
    /// The tallest column's height.
    var tallest: Double { get }
    /// Saves every column's height, by column, then `bottom`, as the checkpoint before `item`.
    func save(into checkpoints: inout SectionCheckpoints, before item: Int, bottom: Double)
}

/// Two columns held in registers rather than memory: the default waterfall. The same pick as the scan:
/// the right column only when it is strictly shorter, or (`lastWins`) when it is not taller.
struct PairedWaterfallColumns: WaterfallColumnHeights {
    var left: Double
    var right: Double
    let lastWins: Bool

    @inline(__always)
    mutating func placeOnShortest(advance: Double) -> (column: Int, y: Double) {
        if right < left || (lastWins && right == left) {
            let y = right
            right = y + advance
            return (1, y)
        }
        let y = left
        left = y + advance
        return (0, y)
    }

    var tallest: Double { Swift.max(left, right) }

    func save(into checkpoints: inout SectionCheckpoints, before item: Int, bottom: Double) {
        checkpoints.append(item: item, state: [left, right, bottom])
    }
}

/// A linear scan: the fastest pick for the few columns a waterfall usually has.
struct ScannedWaterfallColumns: WaterfallColumnHeights {
    /// One running height per column; at least one.
    let heights: UnsafeMutableBufferPointer<Double>
    let lastWins: Bool

    @inline(__always)
    mutating func placeOnShortest(advance: Double) -> (column: Int, y: Double) {
        var shortest = 0
        var y = heights[0]
        if lastWins {
            for column in 1..<heights.count where heights[column] <= y {
                shortest = column
                y = heights[column]
            }
        } else {
            for column in 1..<heights.count where heights[column] < y {
                shortest = column
                y = heights[column]
            }
        }
        heights[shortest] = y + advance
        return (shortest, y)
    }

    var tallest: Double { heights.max() ?? 0 }

    func save(into checkpoints: inout SectionCheckpoints, before item: Int, bottom: Double) {
        checkpoints.append(item: item, state: heights, then: bottom)
    }
}

/// A binary min-heap ordered by (height, column), or by (height, -column) with `lastWins`: O(log
/// columns) per item for many columns, and the same choice as the scan, since the lexicographic minimum
/// is the shortest column with the lowest (highest) index.
struct HeapedWaterfallColumns: WaterfallColumnHeights {
    /// One running height per column; at least one.
    let heights: UnsafeMutableBufferPointer<Double>
    /// Column indices in heap order.
    let heap: UnsafeMutableBufferPointer<Int>
    let lastWins: Bool

    /// Every column starts at its value in `heights`, and the columns are put in heap order. The root is
    /// then the least (height, column), which alone decides every placement, so how the rest is
    /// arranged does not matter.
    init(heights: UnsafeMutableBufferPointer<Double>, heap: UnsafeMutableBufferPointer<Int>, lastWins: Bool) {
        self.heights = heights
        self.heap = heap
        self.lastWins = lastWins
        for slot in heap.indices { heap[slot] = slot }
        for slot in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(from: slot) }
    }

    @inline(__always)
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let ya = heights[a]
        let yb = heights[b]
        return ya < yb || (ya == yb && (lastWins ? a > b : a < b))
    }

    mutating func placeOnShortest(advance: Double) -> (column: Int, y: Double) {
        let column = heap[0]
        let y = heights[column]
        heights[column] = y + advance
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

    func save(into checkpoints: inout SectionCheckpoints, before item: Int, bottom: Double) {
        checkpoints.append(item: item, state: heights, then: bottom)
    }
}
