extension Journal {
    /// What the index knows of a key. Packed (56 bytes): the index holds one for every key ever kept.
    public struct Entry: Sendable, Hashable {
        public var version: Int
        public var epoch: UInt64
        /// With the log: the lsn of the key's last write, which SQLite must have before the key is read.
        var lsn: UInt64 = 0
        private var itemCount: UInt32
        /// Saturated at `UInt32.max`: they only decide when changes are folded into a snapshot.
        private var rebuildByteCount: UInt32
        private var changeByteCount: UInt32
        private var changeCount: UInt32
        public var isKept: Bool
        /// A write of this key failed: its next change must be a snapshot, the chain being broken.
        var isBroken = false

        init(version: Int, epoch: UInt64, items: Int, isKept: Bool, rebuildBytes: Int, changeBytes: Int, changes: Int) {
            self.version = version
            self.epoch = epoch
            self.isKept = isKept
            itemCount = Self.saturated(items)
            rebuildByteCount = Self.saturated(rebuildBytes)
            changeByteCount = Self.saturated(changeBytes)
            changeCount = Self.saturated(changes)
        }

        public var items: Int {
            get { Int(itemCount) }
            set { itemCount = Self.saturated(newValue) }
        }

        var rebuildBytes: Int { Int(rebuildByteCount) }

        var changeBytes: Int {
            get { Int(changeByteCount) }
            set { changeByteCount = Self.saturated(newValue) }
        }

        var changes: Int {
            get { Int(changeCount) }
            set { changeCount = Self.saturated(newValue) }
        }

        private static func saturated(_ value: Int) -> UInt32 {
            UInt32(clamping: value)
        }
    }

    /// What the index takes per key in memory: a hash table bucket (key and entry) at the table's
    /// lowest load (3/8, just after it grew), so that a bound counting it is never short.
    public static let indexBytesPerKey = (MemoryLayout<JournalKey>.stride + MemoryLayout<Entry>.stride) * 8 / 3
}
