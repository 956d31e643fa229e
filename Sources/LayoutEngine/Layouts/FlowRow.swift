/// The flow row being filled. Its items are the frames `start..<end`, already written where they sit
/// before any transform; a transform rewrites them in place, so a row needs no buffer of its own.
struct FlowRow {
    var start: Int
    var end: Int
    var y: Double
    /// Every item's placed height (the same-height rule keeps them equal).
    var height: Double
    /// `Σw + (k-1)*interitemSpacing`.
    var used: Double
    /// Where the next item of the row would start: the last item's maxX + interitemSpacing.
    var nextX: Double

    /// A row holding item `index` alone at x `left`.
    init(first index: Int, y: Double, left: Double, width: Double, height: Double, spacing: Double) {
        start = index
        end = index + 1
        self.y = y
        self.height = height
        used = width
        nextX = left + width + spacing
    }

    /// Whether a flow item of this size joins the row: same height exactly, and
    /// `rowUsed + interitemSpacing + w <= Wr`.
    @inline(__always)
    func admits(width: Double, height: Double, spacing: Double, rowWidth: Double) -> Bool {
        height == self.height && used + spacing + width <= rowWidth
    }

    /// Adds an item that `admits` allowed; returns its x.
    @inline(__always)
    mutating func append(width: Double, spacing: Double) -> Double {
        let x = nextX
        used = used + spacing + width
        nextX = x + width + spacing
        end += 1
        return x
    }
}
