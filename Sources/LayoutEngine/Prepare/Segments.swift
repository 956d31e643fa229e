import Dispatch

/// Splits an item range into fixed-size segments and runs them, concurrently or one after another.
///
/// Segment boundaries depend only on the item count and `segmentSize`, never on the thread count, so
/// the parallel and serial paths run the very same arithmetic and give bit-identical frames.
public struct Segments: Hashable, Sendable {
    /// Items per segment.
    public var segmentSize: Int
    /// Whether segments may run concurrently.
    public var isParallel: Bool

    public init(segmentSize: Int = 1 << 16, isParallel: Bool = true) {
        self.segmentSize = Swift.max(1, segmentSize)
        self.isParallel = isParallel
    }

    /// The serial path: same segments, one after another.
    public static let serial = Segments(isParallel: false)

    /// The number of segments `count` items split into.
    public func segmentCount(for count: Int) -> Int {
        (count + segmentSize - 1) / segmentSize
    }

    /// The item range of segment `index`.
    public func range(ofSegment index: Int, count: Int) -> Range<Int> {
        let start = index * segmentSize
        return start..<Swift.min(start + segmentSize, count)
    }

    /// Runs `body(segmentIndex, itemRange)` for every segment of `count` items.
    public func forEachSegment(count: Int, _ body: @Sendable (Int, Range<Int>) -> Void) {
        let segmentCount = segmentCount(for: count)
        if isParallel && segmentCount > 1 {
            DispatchQueue.concurrentPerform(iterations: segmentCount) { segment in
                body(segment, range(ofSegment: segment, count: count))
            }
        } else {
            for segment in 0..<segmentCount {
                body(segment, range(ofSegment: segment, count: count))
            }
        }
    }

    /// Runs `body` for every index in `0..<count` (for example sections), concurrently when allowed.
    public func forEach(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if isParallel && count > 1 {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
        } else {
            for index in 0..<count { body(index) }
        }
    }
}
