import Dispatch

extension Segments {
    /// `forEachSegment(count:_:)` for the segments from `firstSegment` on only: what a layout resuming part
    /// way through a section runs. The segments are the very same ones, so is the arithmetic inside them.
    func forEachSegment(count: Int, from firstSegment: Int, _ body: @Sendable (Int, Range<Int>) -> Void) {
        let segmentCount = segmentCount(for: count)
        guard firstSegment < segmentCount else { return }
        let remaining = segmentCount - firstSegment
        if isParallel && remaining > 1 {
            DispatchQueue.concurrentPerform(iterations: remaining) { offset in
                let segment = firstSegment + offset
                body(segment, range(ofSegment: segment, count: count))
            }
        } else {
            for segment in firstSegment..<segmentCount {
                body(segment, range(ofSegment: segment, count: count))
            }
        }
    }
}
