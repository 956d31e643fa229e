import LayoutEngine

/// What a key costs the store, kept in one flat array: its layout (nil once dropped or evicted: its
/// version is still kept), version, stamp, and its links in the recency list.
struct StoreSlot {
    var key: LayoutKey
    var layout: PreparedLayout?
    var version: Int
    var stamp: UInt64 = 0
    /// The layout's `byteCount` (0 when not resident).
    var bytes: Int = 0
    /// Neighbours in the recency list of resident layouts (-1: none).
    var older: Int32 = -1
    var newer: Int32 = -1
}

/// The store's state behind its lock: every known key has one slot, found through `index`; resident
/// layouts are linked from the least to the most recently used, so an eviction takes the oldest in
/// O(1) whatever the key count.
struct StoreState: ~Copyable {
    var index: [LayoutKey: Int32] = [:]
    var slots: [StoreSlot] = []
    /// Slots of removed keys, reused first.
    var freeSlots: [Int32] = []
    var oldest: Int32 = -1
    var newest: Int32 = -1
    /// Resident layouts, and their `byteCount`s added up.
    var resident = 0
    var layoutBytes = 0
    /// Heap taken by key names too long to be held inline.
    var keyBytes = 0
    var evictions = 0
    /// The keys `list` shows, in order: those in memory, and with a journal those it keeps too.
    var listed = SortedKeys()

    subscript(slot: Int32) -> StoreSlot {
        get { slots[Int(slot)] }
        _modify { yield &slots[Int(slot)] }
    }

    func slot(of key: LayoutKey) -> Int32? {
        index[key]
    }

    /// A new slot for `key`, at version 0, holding no layout.
    mutating func addSlot(for key: LayoutKey) -> Int32 {
        let fresh = StoreSlot(key: key, layout: nil, version: 0)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(free)] = fresh
        } else {
            slot = Int32(slots.count)
            slots.append(fresh)
        }
        index[key] = slot
        keyBytes += Self.heapBytes(of: key)
        return slot
    }

    /// Forgets `slot`'s key altogether (its layout, version and stamp).
    mutating func removeSlot(_ slot: Int32) {
        forgetLayout(in: slot)
        let key = slots[Int(slot)].key
        index[key] = nil
        keyBytes -= Self.heapBytes(of: key)
        slots[Int(slot)] = StoreSlot(key: LayoutKey(name: ""), layout: nil, version: 0)
        freeSlots.append(slot)
    }

    /// Removes `slot` when it keeps nothing: no layout, version 0, no stamp.
    mutating func removeIfEmpty(_ slot: Int32) {
        let held = slots[Int(slot)]
        if held.layout == nil, held.version == 0, held.stamp == 0 { removeSlot(slot) }
    }

    /// Makes `layout` the slot's, as the most recently used.
    mutating func keep(_ layout: PreparedLayout, bytes: Int, in slot: Int32) {
        forgetLayout(in: slot)
        slots[Int(slot)].layout = layout
        slots[Int(slot)].bytes = bytes
        resident += 1
        layoutBytes += bytes
        link(slot)
    }

    /// Lets go of the slot's layout, keeping its version.
    mutating func forgetLayout(in slot: Int32) {
        guard slots[Int(slot)].layout != nil else { return }
        unlink(slot)
        resident -= 1
        layoutBytes -= slots[Int(slot)].bytes
        slots[Int(slot)].layout = nil
        slots[Int(slot)].bytes = 0
    }

    /// Marks a resident slot as just used.
    mutating func touch(_ slot: Int32) {
        guard newest != slot else { return }
        unlink(slot)
        link(slot)
    }

    private mutating func link(_ slot: Int32) {
        slots[Int(slot)].older = newest
        slots[Int(slot)].newer = -1
        if newest >= 0 { slots[Int(newest)].newer = slot } else { oldest = slot }
        newest = slot
    }

    private mutating func unlink(_ slot: Int32) {
        let (older, newer) = (slots[Int(slot)].older, slots[Int(slot)].newer)
        if older >= 0 { slots[Int(older)].newer = newer } else { oldest = newer }
        if newer >= 0 { slots[Int(newer)].older = older } else { newest = older }
        slots[Int(slot)].older = -1
        slots[Int(slot)].newer = -1
    }

    // MARK: Accounting

    /// The heap the store's own structures take: the hash table (its buckets as allocated, not only the
    /// ones in use), the slot array at its capacity, the free list and long key names.
    var tableBytes: Int {
        var buckets = 0
        if index.capacity > 0 {
            buckets = 1
            while buckets * 3 / 4 < index.capacity { buckets <<= 1 }
        }
        let table = buckets == 0 ? 0 : HeapBytes.block(64 + buckets / 8 + buckets * (MemoryLayout<LayoutKey>.stride + MemoryLayout<Int32>.stride))
        return table + HeapBytes.array(slots) + HeapBytes.array(freeSlots) + keyBytes
    }

    /// What counts against the bound: layouts, tables, and `perKey` for every known key.
    func totalBytes(perKey: Int) -> Int {
        layoutBytes + tableBytes + index.count * perKey
    }

    /// What `slot`'s key costs: its layout, and its share of the tables and of `perKey`.
    func bytes(of slot: Int32, perKey: Int) -> Int {
        let keys = Swift.max(1, index.count)
        return slots[Int(slot)].bytes + (tableBytes - keyBytes) / keys + Self.heapBytes(of: slots[Int(slot)].key) + perKey
    }

    /// The `list` summary of a resident slot; nil when its layout is not in memory.
    func summary(of slot: Int32, perKey: Int) -> LayoutStore.Summary? {
        let held = slots[Int(slot)]
        guard let layout = held.layout else { return nil }
        return LayoutStore.Summary(key: held.key, version: held.version, items: layout.itemCount, bytes: bytes(of: slot, perKey: perKey), stamp: held.stamp)
    }

    private static func heapBytes(of key: LayoutKey) -> Int {
        HeapBytes.string(key.namespace) + HeapBytes.string(key.name)
    }
}
