/// A growable column of plain values for the bulk decoders.
///
/// `Array.append` checks uniqueness and capacity through the runtime on every call, which was a fifth
/// of the cost of a decoded number; this buffer appends with one comparison and hands the result over
/// as an array with one copy at the end.
struct ColumnBuffer<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        self.capacity = Swift.max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        base[count] = element
        // Wrapping: count stays below capacity, an allocated size.
        count &+= 1
    }

    /// Appends `element` `repetitions` times.
    mutating func append(repeating element: Element, count repetitions: Int) {
        for _ in 0..<repetitions { append(element) }
    }

    private mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// The elements as an array.
    consuming func array() -> [Element] {
        let count = self.count
        let base = self.base
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let destination = buffer.baseAddress, count > 0 {
                destination.initialize(from: base, count: count)
            }
            initialized = count
        }
    }
}
