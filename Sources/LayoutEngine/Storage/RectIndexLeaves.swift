extension RectIndex {
    /// Gathers the leaf boxes of elements given in layout order, `leafSize` elements per leaf, straight
    /// into the index's buffer.
    ///
    /// Cells come a whole column set at a time, so the hot loop reads the four columns straight through
    /// with no call per element.
    struct Leaves {
        /// Room for every leaf (and more); the first `count` are written.
        private let boxes: UnsafeMutableBufferPointer<Box>
        private(set) var count = 0
        private var current = Box.empty
        private var inLeaf = 0

        /// Writes leaves from `boxes[firstLeaf]` on; the ones before are already there.
        init(into boxes: UnsafeMutableBufferPointer<Box>, startingAtLeaf firstLeaf: Int = 0) {
            self.boxes = boxes
            count = firstLeaf
        }

        /// Adds one element.
        @inline(__always)
        mutating func add(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            current.formUnion(Box(minX: minX, minY: minY, maxX: maxX, maxY: maxY))
            inLeaf += 1
            if inLeaf == RectIndex.leafSize { closeLeaf() }
        }

        /// Adds a frame moved down by `dy`, with the arithmetic the queries use: y + dy, then + height.
        @inline(__always)
        mutating func add(_ frame: Rect, dy: Double) {
            let minY = frame.y + dy
            add(minX: frame.x, minY: minY, maxX: frame.x + frame.width, maxY: minY + frame.height)
        }

        /// Adds the cells of `cells` from index `first` on, moved down by `top` (y + top, then + height, as
        /// queries compute it).
        mutating func addCells(_ cells: FrameColumns, from first: Int = 0, top: Double) {
            cells.withUnsafeColumns { xs, ys, widths, heights in
                let cellCount = xs.count
                var i = first
                // Finish the leaf the previous elements left open.
                while i < cellCount, inLeaf != 0 {
                    let y = ys[i] + top
                    add(minX: xs[i], minY: y, maxX: xs[i] + widths[i], maxY: y + heights[i])
                    i += 1
                }
                // Whole leaves.
                var leaf = count
                while cellCount - i >= RectIndex.leafSize {
                    // Written as compare-and-pick (not Swift.min/max) so each lowers to one minpd/maxpd.
                    var minX = Double.infinity
                    var minY = Double.infinity
                    var maxX = -Double.infinity
                    var maxY = -Double.infinity
                    for j in i..<(i + RectIndex.leafSize) {
                        let x = xs[j]
                        let y = ys[j] + top
                        let right = x + widths[j]
                        let bottom = y + heights[j]
                        minX = x < minX ? x : minX
                        minY = y < minY ? y : minY
                        maxX = right > maxX ? right : maxX
                        maxY = bottom > maxY ? bottom : maxY
                    }
                    boxes[leaf] = Box(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
                    leaf += 1
                    i += RectIndex.leafSize
                }
                count = leaf
                while i < cellCount {
                    let y = ys[i] + top
                    add(minX: xs[i], minY: y, maxX: xs[i] + widths[i], maxY: y + heights[i])
                    i += 1
                }
            }
        }

        private mutating func closeLeaf() {
            boxes[count] = current
            count += 1
            current = .empty
            inLeaf = 0
        }

        /// Closes the last leaf, even if short; returns the number of leaves.
        mutating func finish() -> Int {
            if inLeaf > 0 { closeLeaf() }
            return count
        }
    }
}
