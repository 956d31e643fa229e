/// The keys a store lists, in order, so that a page of `list` costs its own length and a binary search,
/// not a sort of every key (a million keys took seconds).
///
/// A sorted array cut into chunks of at most `2 × chunkSize` keys: an insert or a removal moves one
/// chunk's elements and, rarely, the chunk array's; a lookup is two binary searches. About the key's own
/// bytes per key (a `LayoutKey` copy shares its strings' storage with the store's).
struct SortedKeys {
    static let chunkSize = 512

    private var chunks: [[LayoutKey]] = []
    private(set) var count = 0

    /// Adds `key`; false when it was there.
    @discardableResult
    mutating func insert(_ key: LayoutKey) -> Bool {
        guard !chunks.isEmpty else {
            chunks = [[key]]
            count = 1
            return true
        }
        let chunk = Swift.min(chunkIndex(forKey: key), chunks.count - 1)
        let (position, found) = Self.search(chunks[chunk], for: key)
        guard !found else { return false }
        chunks[chunk].insert(key, at: position)
        count += 1
        if chunks[chunk].count > 2 * Self.chunkSize {
            let upper = Array(chunks[chunk][Self.chunkSize...])
            chunks[chunk].removeSubrange(Self.chunkSize...)
            chunks.insert(upper, at: chunk + 1)
        }
        return true
    }

    /// Removes `key`; false when it was not there.
    @discardableResult
    mutating func remove(_ key: LayoutKey) -> Bool {
        let chunk = chunkIndex(forKey: key)
        guard chunk < chunks.count else { return false }
        let (position, found) = Self.search(chunks[chunk], for: key)
        guard found else { return false }
        chunks[chunk].remove(at: position)
        count -= 1
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
        return true
    }

    func contains(_ key: LayoutKey) -> Bool {
        let chunk = chunkIndex(forKey: key)
        return chunk < chunks.count && Self.search(chunks[chunk], for: key).found
    }

    /// A position in the order: a chunk and an index in it.
    struct Position: Comparable {
        fileprivate var chunk: Int
        fileprivate var index: Int

        static func < (lhs: Position, rhs: Position) -> Bool { (lhs.chunk, lhs.index) < (rhs.chunk, rhs.index) }
    }

    /// The position of the first key at or after `key` (`inclusive`), or strictly after it.
    func position(from key: LayoutKey, inclusive: Bool) -> Position {
        var chunk = chunkIndex(forKey: key)
        guard chunk < chunks.count else { return Position(chunk: chunks.count, index: 0) }
        var (index, found) = Self.search(chunks[chunk], for: key)
        if found, !inclusive { index += 1 }
        if index == chunks[chunk].count {
            chunk += 1
            index = 0
        }
        return Position(chunk: chunk, index: index)
    }

    /// The key at `position`, and the position after it; nil at the end.
    func key(at position: Position) -> (key: LayoutKey, next: Position)? {
        guard position.chunk < chunks.count else { return nil }
        let keys = chunks[position.chunk]
        let next = position.index + 1 < keys.count ? Position(chunk: position.chunk, index: position.index + 1) : Position(chunk: position.chunk + 1, index: 0)
        return (keys[position.index], next)
    }

    /// The first chunk whose last key is at or after `key` (`chunks.count` when none is).
    private func chunkIndex(forKey key: LayoutKey) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, last < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where `key` is, or would go, in `keys`.
    private static func search(_ keys: [LayoutKey], for key: LayoutKey) -> (position: Int, found: Bool) {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return (low, low < keys.count && keys[low] == key)
    }
}
