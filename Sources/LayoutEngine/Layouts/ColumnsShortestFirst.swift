/// The columns of a section ordered for `shortestFirst`: least height first, ties to the leftmost.
///
/// A binary min-heap rather than a scan, so a large `columnCount` costs O(log n) per item, not O(n).
/// Heap slots hold each column's bottom (maxY of its last item, the column top while empty) and index.
struct ColumnsShortestHeap {
    private var bottoms: [Double]
    private var columns: [Int]

    /// `count` empty columns, all with bottom `top`; equal keys in index order already form a heap.
    init(count: Int, top: Double) {
        bottoms = [Double](repeating: top, count: count)
        columns = Array(0..<count)
    }

    /// The column an item goes to next.
    var shortest: Int { columns[0] }

    /// The bottom of `shortest`.
    var shortestBottom: Double { bottoms[0] }

    /// The tallest column's bottom, or `top` when no column exists.
    func tallestBottom(orIfEmpty top: Double) -> Double {
        bottoms.reduce(top) { Swift.max($0, $1) }
    }

    /// Moves `shortest` to its new place once an item has made it taller.
    mutating func raiseShortest(to bottom: Double) {
        bottoms[0] = bottom
        siftDown(from: 0)
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        bottoms[a] < bottoms[b] || (bottoms[a] == bottoms[b] && columns[a] < columns[b])
    }

    private mutating func siftDown(from start: Int) {
        let count = bottoms.count
        var parent = start
        while true {
            let left = 2 * parent + 1
            if left >= count { return }
            var child = left
            if left + 1 < count, precedes(left + 1, left) { child = left + 1 }
            if !precedes(child, parent) { return }
            bottoms.swapAt(parent, child)
            columns.swapAt(parent, child)
            parent = child
        }
    }
}
