/// A growable column of plain values for the bulk decoders.
///
/// `Array.append` checks uniqueness and capacity through the runtime on every call, which was a fifth
/// of the cost of a decoded number. This buffer appends into a small chunk with one comparison, and
/// moves each full chunk into the resulting array. The chunk stays in the first-level cache, so the
/// move is cheap, and the array is written once: no copy of the whole column at the end (8 MB for 10^6
/// numbers, about a tenth of decoding them).
struct ColumnBuffer<Element: BitwiseCopyable>: ~Copyable {
    /// The elements moved out of the chunk, in order.
    private var moved: [Element] = []
    private let chunk: UnsafeMutablePointer<Element>
    private let chunkCapacity: Int
    private var chunkCount = 0

    /// A buffer moving its elements `chunkCapacity` at a time. 512 keeps a chunk of doubles at 4 KB,
    /// and a move's fixed cost small beside its elements'.
    init(chunkCapacity: Int = 512) {
        self.chunkCapacity = Swift.max(16, chunkCapacity)
        chunk = .allocate(capacity: self.chunkCapacity)
    }

    deinit {
        chunk.deallocate()
    }

    /// The elements appended so far.
    var count: Int { moved.count &+ chunkCount }

    @inline(__always)
    mutating func append(_ element: Element) {
        if chunkCount == chunkCapacity { moveChunk() }
        chunk[chunkCount] = element
        // Wrapping: chunkCount stays at most chunkCapacity.
        chunkCount &+= 1
    }

    /// Appends `element` `repetitions` times.
    mutating func append(repeating element: Element, count repetitions: Int) {
        for _ in 0..<repetitions { append(element) }
    }

    private mutating func moveChunk() {
        moved.append(contentsOf: UnsafeBufferPointer(start: chunk, count: chunkCount))
        chunkCount = 0
    }

    /// The elements as an array.
    consuming func array() -> [Element] {
        moveChunk()
        return moved
    }
}
