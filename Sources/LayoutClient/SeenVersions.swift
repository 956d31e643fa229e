/// The newest version a client has seen of each key, in a change's reply or a read's: every read
/// sends it as `minVersion`, and a reply older than it is never returned (docs/PROTOCOL.md §11). Bounded:
/// past `capacity` keys, the key noted longest ago is forgotten first (its next read may then be answered
/// from any copy at least as new as the route table knows).
struct SeenVersions {
    private var versions: [String: Int] = [:]
    /// Keys in the order they were first noted, with a head index: evicted oldest first.
    private var order: [String] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int = 65_536) {
        self.capacity = max(1, capacity)
    }

    subscript(key: String) -> Int? {
        versions[key]
    }

    /// A read answered `version`: the newest seen stays the highest.
    mutating func noteRead(_ version: Int, of key: String) {
        set(max(versions[key] ?? version, version), of: key)
    }

    /// A change was acknowledged at `version`: the key's state now, newer than anything read before it,
    /// even at a lower number (a daemon restarted without a journal counts from 1 again).
    mutating func noteChange(_ version: Int, of key: String) {
        set(version, of: key)
    }

    var count: Int { versions.count }

    private mutating func set(_ version: Int, of key: String) {
        if versions.updateValue(version, forKey: key) == nil {
            order.append(key)
            while versions.count > capacity, head < order.count {
                versions[order[head]] = nil
                head += 1
            }
            if head > 4096, head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
    }
}
