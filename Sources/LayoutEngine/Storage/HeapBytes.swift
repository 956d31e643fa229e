/// What the C heap takes for an allocation, so that the bytes a layout reports are the memory it holds
/// (docs/OPERATIONS.md, What a key costs), not only its payload.
///
/// glibc's malloc: 8 bytes of header per block, blocks in steps of 16, 32 at least; Swift's arrays and
/// objects add their own 16-byte object header, and an array its count and capacity (32 in all).
public enum HeapBytes {
    /// The block malloc hands out for a request of `bytes`.
    @inlinable
    public static func block(_ bytes: Int) -> Int {
        Swift.max(32, (bytes + 8 + 15) & ~15)
    }

    /// The heap an array's buffer takes: its capacity, not only its count; none for an empty array that
    /// never allocated (every such array shares one static buffer).
    @inlinable
    public static func array<Element>(_ array: [Element]) -> Int {
        array.capacity == 0 ? 0 : block(32 + array.capacity * MemoryLayout<Element>.stride)
    }

    /// The heap a string's UTF-8 takes: none for a small one (up to 15 bytes, held inline).
    @inlinable
    public static func string(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : block(32 + count + 1)
    }
}
