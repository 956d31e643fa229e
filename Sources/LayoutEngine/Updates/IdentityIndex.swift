/// Where each id of one section sits: an open-addressing hash table over positions, for `Diff`.
///
/// Why not `[ItemID: Int]`: a diff of 10^6 ids is two passes of random lookups, and the standard
/// dictionary's cost there is SipHash per lookup plus 32-byte buckets that miss the cache. Here a slot
/// is one `UInt64` (a 32-bit hash tag and the position), the table is at most half full, and an id is
/// read (to confirm a match) only when its tag matched.
struct IdentityIndex {
    private let slots: [UInt64]
    private let mask: Int
    private let ids: [ItemID]

    /// An id that occurs twice: its later and its first position.
    struct Duplicate: Error {
        var position: Int
        var earlier: Int
    }

    /// Indexes every id of `ids` in order, filed under `hash` (`IdentityHasher.hash` outside tests);
    /// there are fewer than 2^32 ids (a section holds at most `InputLimits.maxItems`).
    ///
    /// - Throws: the first position whose id occurred before.
    init(_ ids: [ItemID], hash: (ItemID) -> UInt64) throws(Duplicate) {
        // At least twice the count, a power of two: short probe runs, and `& mask` for the slot.
        var capacity = 16
        while capacity < 2 * ids.count { capacity <<= 1 }
        let mask = capacity - 1
        var slots = [UInt64](repeating: 0, count: capacity)
        let duplicate: Duplicate? = slots.withUnsafeMutableBufferPointer { slots in
            for position in ids.indices {
                let hash = hash(ids[position])
                let tag = hash >> 32
                var slot = Int(truncatingIfNeeded: hash) & mask
                while true {
                    let found = slots[slot]
                    if found == 0 {
                        slots[slot] = tag << 32 | UInt64(position + 1)
                        break
                    }
                    if found >> 32 == tag {
                        let other = Int(truncatingIfNeeded: found & 0xFFFF_FFFF) - 1
                        if ids[other] == ids[position] { return Duplicate(position: position, earlier: other) }
                    }
                    slot = (slot + 1) & mask
                }
            }
            return nil
        }
        if let duplicate { throw duplicate }
        self.slots = slots
        self.mask = mask
        self.ids = ids
    }

    /// The position of `id`, whose hash is `hash`, or nil.
    func position(of id: ItemID, hash: UInt64) -> Int? {
        let tag = hash >> 32
        var slot = Int(truncatingIfNeeded: hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let found = slots[slot]
                if found == 0 { return nil }
                if found >> 32 == tag {
                    let other = Int(truncatingIfNeeded: found & 0xFFFF_FFFF) - 1
                    if ids[other] == id { return other }
                }
                slot = (slot + 1) & mask
            }
        }
    }
}

/// The hash `IdentityIndex` files ids under: equal ids hash equally.
///
/// Integers go through a seeded 64-bit finalizer (a few multiplies, no SipHash); strings use the
/// standard library's hash, which follows `String`'s equality (canonical equivalence). Both are seeded
/// per process, so ids cannot be picked to collide on purpose.
struct IdentityHasher {
    private let seed: UInt64

    /// Drawn once per process.
    private static let processSeed = UInt64.random(in: .min ... .max)

    init() {
        seed = Self.processSeed
    }

    @inline(__always)
    func hash(_ id: ItemID) -> UInt64 {
        switch id {
        case .integer(let value): return Self.mix(UInt64(bitPattern: value) ^ seed)
        case .string(let value): return Self.mix(UInt64(bitPattern: Int64(value.hashValue)))
        }
    }

    /// SplitMix64's finalizer: every input bit reaches every output bit, so the low bits index well.
    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
