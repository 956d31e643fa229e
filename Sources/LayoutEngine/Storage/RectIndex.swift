/// A packed bounding-box tree over the elements in layout order.
///
/// Why not a sort by y: mosaic's three-item segments and waterfall's columns break "y grows with the
/// index", which is exactly how Apple's binSearch misses items. Grouping consecutive elements (layout
/// order keeps them spatially close in every layout) and keeping each group's bounding box is correct
/// for any placement, answers in layout order by construction, costs about two bytes per element, and
/// finds the k hits of a rect in O(log n + k) for the layouts we have.
struct RectIndex: Hashable, Sendable {
    /// Elements per leaf.
    static let leafSize = 16
    /// Children per inner node.
    static let fanout = 8

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

        /// Conservative: if any element inside overlaps `rect`, so does the box. The y terms come first:
        /// layouts stack along y, so they are the ones that reject.
        @inline(__always)
        func intersects(_ rect: Rect) -> Bool {
            minY < rect.maxY && maxY > rect.minY && minX < rect.maxX && maxX > rect.minX
        }
    }

    /// Every level's boxes back to back, leaves first: one flat array, so a query walks one buffer
    /// instead of retaining an array per level it visits.
    private(set) var boxes: [Box]
    /// Where each level starts in `boxes`, leaves at 0, plus the end; the last level has at most
    /// `fanout` nodes.
    private(set) var levelStarts: [Int]
    private(set) var elementCount: Int

    /// The index over `elementCount` elements whose leaf boxes `leaves` (one per `leafSize` elements,
    /// in layout order) has already computed.
    ///
    /// When the first `unchangedLeaves` leaves are `previous`'s, every upper box over those leaves alone
    /// is copied from `previous` rather than computed: it is the union of the same boxes in the same order.
    init(leaves: consuming [Box], elementCount: Int, reusing previous: RectIndex? = nil, unchangedLeaves: Int = 0) {
        self.elementCount = elementCount
        // Consumed, so the upper levels go into the leaves' own spare capacity (`Leaves` reserves it).
        var boxes = consume leaves
        var starts = [0]
        var levelStart = 0
        var levelCount = boxes.count
        var unchanged = previous == nil ? 0 : unchangedLeaves
        var level = 0
        boxes.reserveCapacity(Self.boxCount(forLeafCount: levelCount))
        while levelCount > Self.fanout {
            let parentStart = boxes.count
            level += 1
            unchanged /= Self.fanout
            if let previous, unchanged > 0 {
                let old = previous.range(ofLevel: level)
                unchanged = Swift.min(unchanged, old.count)
                boxes.append(contentsOf: previous.boxes[old.lowerBound..<(old.lowerBound + unchanged)])
            }
            var child = levelStart + unchanged * Self.fanout
            let levelEnd = levelStart + levelCount
            while child < levelEnd {
                var box = Box.empty
                for index in child..<Swift.min(child + Self.fanout, levelEnd) { box.formUnion(boxes[index]) }
                boxes.append(box)
                child += Self.fanout
            }
            starts.append(parentStart)
            levelStart = parentStart
            levelCount = boxes.count - parentStart
        }
        starts.append(boxes.count)
        self.boxes = boxes
        levelStarts = starts
    }

    /// Layouts of at most this many elements keep no boxes: a query scans them all, which costs less
    /// than walking boxes would, and a million small layouts do not each carry an index.
    static let scanLimit = 64

    /// No boxes: every query visits all `elementCount` elements.
    init(unindexed elementCount: Int) {
        self.elementCount = elementCount
        boxes = []
        levelStarts = []
    }

    /// The number of leaf boxes (0 when unindexed).
    var leafCount: Int { levelStarts.count > 1 ? levelStarts[1] : 0 }

    /// Where level `level` (0: the leaves) lies in `boxes`; empty past the top.
    private func range(ofLevel level: Int) -> Range<Int> {
        guard level + 1 < levelStarts.count else { return 0..<0 }
        return levelStarts[level]..<levelStarts[level + 1]
    }

    /// Leaves and every upper level: about 1/15 more than the leaves.
    static func boxCount(forLeafCount leafCount: Int) -> Int {
        var total = leafCount
        var level = leafCount
        while level > fanout {
            level = (level + fanout - 1) / fanout
            total += level
        }
        return total
    }

    /// Calls `visitLeaves` with the element range of every run of adjacent leaves whose boxes overlap
    /// `rect`, in layout order.
    @inline(__always)
    func forEachCandidateRange(in rect: Rect, _ visitLeaves: (Range<Int>) -> Void) {
        forEachCandidateRange(where: BoxesOverlapping(rect: rect), visitLeaves)
    }

    /// Calls `visitLeaves` with the element range of every run of adjacent leaves whose boxes `test`
    /// accepts, in layout order. `test` must accept every box that accepts one of its children.
    ///
    /// A depth-first walk with an explicit stack (one cursor per level), skipping the misses of a run
    /// of siblings in a tight loop; inlined, so the closure's captures are not copied per node.
    @inline(__always)
    func forEachCandidateRange<Test: BoxTest>(where test: Test, _ visitLeaves: (Range<Int>) -> Void) {
        walkCandidateRanges(where: test) { range in
            visitLeaves(range)
            return true
        }
    }

    /// The number of elements in the leaves whose boxes overlap `rect` (an upper bound on its hits), or
    /// nil as soon as it exceeds `limit`: the walk stops there, so a rect over most of a large layout
    /// costs no more than a small one. For deciding whether a query is cheap before running it.
    func candidateCount(in rect: Rect, atMost limit: Int) -> Int? {
        var count = 0
        walkCandidateRanges(where: BoxesOverlapping(rect: rect)) { range in
            count += range.count
            return count <= limit
        }
        return count <= limit ? count : nil
    }

    /// The walk of `forEachCandidateRange(where:_:)`; it stops once `visitLeaves` returns false.
    @inline(__always)
    private func walkCandidateRanges<Test: BoxTest>(where test: Test, _ visitLeaves: (Range<Int>) -> Bool) {
        let levelCount = levelStarts.count - 1
        guard levelCount > 0 else {
            if levelStarts.isEmpty, elementCount > 0 { _ = visitLeaves(0..<elementCount) }
            return
        }
        var pending = 0..<0
        boxes.withUnsafeBufferPointer { boxes in
            levelStarts.withUnsafeBufferPointer { starts in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * levelCount) { stack in
                    // stack[2 * level]: the next node to test on `level`; stack[2 * level + 1]: the end of its run.
                    let top = levelCount - 1
                    var level = top
                    var node = 0
                    var end = starts[top + 1] - starts[top]
                    while true {
                        let base = starts[level]
                        while node < end, !test.accepts(boxes[base + node]) { node += 1 }
                        if node == end {
                            // This run is done: resume the parent's.
                            if level == top { break }
                            level += 1
                            node = stack[2 * level]
                            end = stack[2 * level + 1]
                            continue
                        }
                        if level == 0 {
                            let start = node * Self.leafSize
                            let leafEnd = Swift.min(start + Self.leafSize, elementCount)
                            if pending.upperBound == start, !pending.isEmpty {
                                pending = pending.lowerBound..<leafEnd
                            } else {
                                if !pending.isEmpty, !visitLeaves(pending) {
                                    pending = 0..<0
                                    break
                                }
                                pending = start..<leafEnd
                            }
                            node += 1
                            continue
                        }
                        // Descend into the hit's children, remembering where this run resumes.
                        stack[2 * level] = node + 1
                        stack[2 * level + 1] = end
                        let childCount = base - starts[level - 1]
                        level -= 1
                        end = Swift.min(node * Self.fanout + Self.fanout, childCount)
                        node = node * Self.fanout
                    }
                }
            }
        }
        if !pending.isEmpty { _ = visitLeaves(pending) }
    }

    /// Bytes held by the index.
    var byteCount: Int { HeapBytes.array(boxes) + HeapBytes.array(levelStarts) }
}

/// Which boxes of a `RectIndex` a walk descends into: those that may hold an element it wants.
protocol BoxTest {
    func accepts(_ box: RectIndex.Box) -> Bool
}

/// Boxes overlapping a rect: a plain rect query.
struct BoxesOverlapping: BoxTest {
    let rect: Rect

    @inline(__always)
    func accepts(_ box: RectIndex.Box) -> Bool { box.intersects(rect) }
}
