/// Frames stored as four flat `Double` columns: 32 bytes per frame, no object per item,
/// and a scan touches only the columns it reads.
public struct FrameColumns: Hashable, Sendable {
    public private(set) var xs: [Double]
    public private(set) var ys: [Double]
    public private(set) var widths: [Double]
    public private(set) var heights: [Double]

    public init() {
        xs = []
        ys = []
        widths = []
        heights = []
    }

    /// `count` frames written by `fill` through raw buffers, without zero-filling first.
    /// `fill` must write every index in `0..<count` (segments may write disjoint ranges concurrently).
    public init(count: Int, fill: (MutableFrameColumns) -> Void) {
        var ysOut: [Double] = []
        var widthsOut: [Double] = []
        var heightsOut: [Double] = []
        xs = [Double](unsafeUninitializedCapacity: count) { xBuffer, xCount in
            ysOut = [Double](unsafeUninitializedCapacity: count) { yBuffer, yCount in
                widthsOut = [Double](unsafeUninitializedCapacity: count) { wBuffer, wCount in
                    heightsOut = [Double](unsafeUninitializedCapacity: count) { hBuffer, hCount in
                        for buffer in [xBuffer, yBuffer, wBuffer, hBuffer] { HugePages.advise(buffer) }
                        fill(MutableFrameColumns(xs: xBuffer, ys: yBuffer, widths: wBuffer, heights: hBuffer))
                        hCount = count
                    }
                    wCount = count
                }
                yCount = count
            }
            xCount = count
        }
        ys = ysOut
        widths = widthsOut
        heights = heightsOut
    }

    /// `count` frames whose first `prefix` are copied from `source` (which must hold at least that many);
    /// `fill` must write every index in `prefix..<count`. The copy runs in chunks, concurrently when
    /// `segments` allows: copying a million frames is most of what a late change in a section costs.
    init(count: Int, copying prefix: Int, of source: FrameColumns, segments: Segments = .serial, fill: (MutableFrameColumns) -> Void) {
        self.init(count: count) { frames in
            if prefix > 0 {
                source.withUnsafeColumns { xs, ys, widths, heights in
                    let source = FrameColumnsSource(xs: xs, ys: ys, widths: widths, heights: heights)
                    let chunks = (prefix + Self.copyChunk - 1) / Self.copyChunk
                    segments.forEach(4 * chunks) { task in
                        let (column, chunk) = task.quotientAndRemainder(dividingBy: chunks)
                        let range = (chunk * Self.copyChunk)..<Swift.min(prefix, (chunk + 1) * Self.copyChunk)
                        let to = UnsafeMutableBufferPointer(rebasing: frames.column(column)[range])
                        _ = to.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: source.column(column)[range]))
                    }
                }
            }
            fill(frames)
        }
    }

    /// Frames per column per copy task: 512 KB, enough to amortise a task hand-off.
    private static let copyChunk = 1 << 16

    public var count: Int { xs.count }
    public var isEmpty: Bool { xs.isEmpty }

    public subscript(index: Int) -> Rect {
        Rect(x: xs[index], y: ys[index], width: widths[index], height: heights[index])
    }

    public mutating func reserveCapacity(_ capacity: Int) {
        xs.reserveCapacity(capacity)
        ys.reserveCapacity(capacity)
        widths.reserveCapacity(capacity)
        heights.reserveCapacity(capacity)
    }

    public mutating func append(_ frame: Rect) {
        xs.append(frame.x)
        ys.append(frame.y)
        widths.append(frame.width)
        heights.append(frame.height)
    }

    /// Calls `body` with read access to the four columns at once (xs, ys, widths, heights).
    @inline(__always)
    func withUnsafeColumns<Result>(
        _ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>) -> Result
    ) -> Result {
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                widths.withUnsafeBufferPointer { widths in
                    heights.withUnsafeBufferPointer { heights in body(xs, ys, widths, heights) }
                }
            }
        }
    }

    /// Bytes held by the frames.
    public var byteCount: Int { count * 4 * MemoryLayout<Double>.stride }
}

extension FrameColumns {
    /// Mirrors the frames from `start` on inside `0...width` (`Rect.mirrored(inWidth:)`): each x becomes
    /// `width - (x + w)`. One pass over two columns, by segment (concurrently when `segments` allows);
    /// each frame's arithmetic is its own, so any split gives the same bits.
    mutating func mirror(inWidth width: Double, from start: Int, segments: Segments) {
        let count = self.count
        guard start < count else { return }
        // Two stored properties of `self` (inout here) may be borrowed at once.
        xs.withUnsafeMutableBufferPointer { xs in
            widths.withUnsafeMutableBufferPointer { widths in
                let (xsOut, widthsIn) = (SendableBuffer(xs), SendableBuffer(widths))
                segments.forEachSegment(count: count - start) { _, range in
                    for i in (start + range.lowerBound)..<(start + range.upperBound) {
                        xsOut[i] = width - (xsOut[i] + widthsIn[i])
                    }
                }
            }
        }
    }
}

/// Raw write access to `FrameColumns` while it is being filled.
///
/// `@unchecked Sendable` because prepare-by-segment hands one value to several threads, each of which
/// writes only its own disjoint index range; the buffers outlive the concurrent fill.
public struct MutableFrameColumns: @unchecked Sendable {
    public let xs: UnsafeMutableBufferPointer<Double>
    public let ys: UnsafeMutableBufferPointer<Double>
    public let widths: UnsafeMutableBufferPointer<Double>
    public let heights: UnsafeMutableBufferPointer<Double>

    @inlinable
    public func set(_ index: Int, x: Double, y: Double, width: Double, height: Double) {
        xs[index] = x
        ys[index] = y
        widths[index] = width
        heights[index] = height
    }

    @inlinable
    public func set(_ index: Int, _ frame: Rect) {
        set(index, x: frame.x, y: frame.y, width: frame.width, height: frame.height)
    }

    /// Column 0 to 3: xs, ys, widths, heights.
    func column(_ column: Int) -> UnsafeMutableBufferPointer<Double> {
        switch column {
        case 0: return xs
        case 1: return ys
        case 2: return widths
        default: return heights
        }
    }
}

/// Read access to `FrameColumns` borrowed for a concurrent copy.
///
/// `@unchecked Sendable`: the copy's tasks only read, and the columns outlive the copy.
private struct FrameColumnsSource: @unchecked Sendable {
    let xs: UnsafeBufferPointer<Double>
    let ys: UnsafeBufferPointer<Double>
    let widths: UnsafeBufferPointer<Double>
    let heights: UnsafeBufferPointer<Double>

    /// Column 0 to 3: xs, ys, widths, heights.
    func column(_ column: Int) -> UnsafeBufferPointer<Double> {
        switch column {
        case 0: return xs
        case 1: return ys
        case 2: return widths
        default: return heights
        }
    }
}

