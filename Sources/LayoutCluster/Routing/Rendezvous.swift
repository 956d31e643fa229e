import LayoutServer

/// Rendezvous (highest-random-weight) hashing: a key belongs to the worker whose (key, worker) score is
/// highest. Adding a worker moves only the keys it now wins (about 1/N of them); removing one moves only
/// its own keys, each to its runner-up. Every broker computes the same owners from the same worker
/// names, with no table to share.
public enum Rendezvous {
    /// A key's hash (64-bit FNV-1a over its UTF-8 bytes).
    public static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// A layout key's hash: its name's in the shared namespace "" (every key without CURVE), else that
    /// of the namespace and the name apart by a NUL (`LayoutKey.schedulingKey`).
    public static func hash(_ key: LayoutKey) -> UInt64 {
        hash(key.schedulingKey)
    }

    /// A worker's seed: its name's hash, mixed, so that similar names ("w-1", "w-2") score unrelated.
    public static func seed(forWorker name: String) -> UInt64 {
        mix(hash(name) ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// The score of a key (by hash) at a worker (by seed).
    @inline(__always)
    public static func score(keyHash: UInt64, workerSeed: UInt64) -> UInt64 {
        mix(keyHash ^ workerSeed)
    }

    /// The index of the winning seed in `seeds` for `keyHash`; nil when there are none. Ties (which
    /// need equal seeds) go to the first.
    public static func winner(keyHash: UInt64, seeds: [UInt64]) -> Int? {
        var best: Int?
        var bestScore: UInt64 = 0
        for (index, seed) in seeds.enumerated() {
            let score = score(keyHash: keyHash, workerSeed: seed)
            if best == nil || score > bestScore {
                best = index
                bestScore = score
            }
        }
        return best
    }

    /// The splitmix64 finalizer: every input bit flips each output bit with probability about 1/2.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
