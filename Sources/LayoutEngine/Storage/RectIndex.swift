/// A packed bounding-box tree over the elements in layout order.
///
/// Why not a sort by y: mosaic's three-item segments and waterfall's columns break "y grows with the
/// index", which is exactly how Apple's binSearch misses items. Grouping consecutive elements (layout
/// order keeps them spatially close in every layout) and keeping each group's bounding box is correct
/// for any placement, answers in layout order by construction, costs about one byte per element, and
/// finds the k hits of a rect in O(log n + k) for the layouts we have.
struct RectIndex: Hashable, Sendable {
    /// Elements per leaf.
    static let leafSize = 32
    /// Children per inner node.
    static let fanout = 16

    struct Box: Hashable, Sendable {
        var minX: Double
        var minY: Double
        var maxX: Double
        var maxY: Double

        static let empty = Box(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

        @inline(__always)
        mutating func formUnion(_ other: Box) {
            minX = Swift.min(minX, other.minX)
            minY = Swift.min(minY, other.minY)
            maxX = Swift.max(maxX, other.maxX)
            maxY = Swift.max(maxY, other.maxY)
        }

        /// Conservative: if any element inside overlaps `rect`, so does the box.
        @inline(__always)
        func intersects(_ rect: Rect) -> Bool {
            minX < rect.maxX && maxX > rect.minX && minY < rect.maxY && maxY > rect.minY
        }
    }

    /// levels[0] are the leaves; the last level has at most `fanout` nodes.
    private(set) var levels: [[Box]]
    private(set) var elementCount: Int

    /// Builds the index from every element's frame, in layout order.
    init(elementCount: Int, forEachFrame: ((_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> Void) -> Void) {
        var leaves: [Box] = []
        leaves.reserveCapacity((elementCount + Self.leafSize - 1) / Self.leafSize)
        var current = Box.empty
        var inLeaf = 0
        forEachFrame { minX, minY, maxX, maxY in
            current.formUnion(Box(minX: minX, minY: minY, maxX: maxX, maxY: maxY))
            inLeaf += 1
            if inLeaf == Self.leafSize {
                leaves.append(current)
                current = .empty
                inLeaf = 0
            }
        }
        if inLeaf > 0 { leaves.append(current) }
        self.elementCount = elementCount
        levels = [leaves]
        while let top = levels.last, top.count > Self.fanout {
            var parents: [Box] = []
            parents.reserveCapacity((top.count + Self.fanout - 1) / Self.fanout)
            var start = 0
            while start < top.count {
                var box = Box.empty
                for child in start..<Swift.min(start + Self.fanout, top.count) { box.formUnion(top[child]) }
                parents.append(box)
                start += Self.fanout
            }
            levels.append(parents)
        }
    }

    /// Calls `visitLeaf` with the element range of every leaf whose box overlaps `rect`, in layout order.
    func forEachCandidateRange(in rect: Rect, _ visitLeaf: (Range<Int>) -> Void) {
        guard let top = levels.last else { return }
        for node in top.indices {
            visit(level: levels.count - 1, node: node, rect: rect, visitLeaf)
        }
    }

    private func visit(level: Int, node: Int, rect: Rect, _ visitLeaf: (Range<Int>) -> Void) {
        guard levels[level][node].intersects(rect) else { return }
        if level == 0 {
            let start = node * Self.leafSize
            visitLeaf(start..<Swift.min(start + Self.leafSize, elementCount))
            return
        }
        let children = levels[level - 1]
        let first = node * Self.fanout
        for child in first..<Swift.min(first + Self.fanout, children.count) {
            visit(level: level - 1, node: child, rect: rect, visitLeaf)
        }
    }

    /// Bytes held by the index.
    var byteCount: Int { levels.reduce(0) { $0 + $1.count * MemoryLayout<Box>.stride } }
}
