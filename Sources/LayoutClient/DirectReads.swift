/// Whether a `LayoutClient` sends reads straight to the cluster worker that owns the key (docs/PROTOCOL.md
/// §11), or always to its front endpoint.
public enum DirectReads: Sendable, Hashable {
    /// `query` goes to the key's owner when the broker's route table names one with a direct endpoint,
    /// with the key's epoch and the newest version this client has seen of it (`minVersion`); on any
    /// doubt (no entry, a timeout, `moved`, `behind`) it goes to the front endpoint instead. Each key's
    /// route is looked up alone (`route` with its `layout`) on its first read, and again after a `moved`
    /// or a timeout, or after this client prepared or dropped it: never the whole table. A single daemon
    /// answers `route` with `role` "daemon" (an older one with `unknown_op`), after which the client
    /// never asks again.
    case automatic
    /// The same as `automatic` (which once fetched the whole table, when this looked keys up alone).
    case automaticByKey
    /// Every request goes to the front endpoint, as before direct reads.
    case off
}

/// The broker's route table as a client keeps it: each key's owner, epoch and the owner's direct
/// endpoint.
struct RouteTable {
    struct Entry {
        var epoch: Int
        /// The owner's direct endpoint; nil when the key is moving or its owner has none.
        var endpoint: String?
    }

    private(set) var entries: [String: Entry] = [:]

    init() {}

    /// The table in a `route` reply's result; keys without a settled owner get no endpoint.
    init(result: AnyJSONObject) {
        var endpoints: [String: String] = [:]
        for worker in result.objects("workers") ?? [] {
            if let name = worker.string("worker"), let direct = worker.string("direct") { endpoints[name] = direct }
        }
        for key in result.objects("keys") ?? [] {
            guard let layout = key.string("layout"), let epoch = key.int("epoch") else { continue }
            entries[layout] = Entry(epoch: epoch, endpoint: key.string("worker").flatMap { endpoints[$0] })
        }
    }

    /// Takes `other`'s entries, and forgets `keys` that `other` does not list (asked and not kept).
    mutating func merge(_ other: RouteTable, asked keys: [String]) {
        for key in keys { entries[key] = nil }
        entries.merge(other.entries) { $1 }
    }

    mutating func forget(_ key: String) {
        entries[key] = nil
    }
}

/// What a client keeps to route reads by itself. Owned by its `LayoutClient`, on one thread.
struct DirectRouter {
    /// The routes looked up so far.
    var table = RouteTable()
    /// The keys whose route `table` holds the answer for (an entry, or none when the broker listed none).
    var keysLookedUp: Set<String> = []
    /// Keys the table may be wrong about (prepared or dropped by this client, or answered `moved`):
    /// looked up alone before their next read.
    var keysToLookUp: Set<String> = []
    /// The newest version this client has seen of each key, in a change's reply or a read's: the
    /// `minVersion` of its next read, direct or through the front, so its reads never go back.
    var seenVersions = SeenVersions()
    /// The front is a single daemon (it answered `route` with `unknown_op`): no more tries.
    var frontHasNoRoutes = false
    /// A DEALER per direct endpoint, made on first use.
    var connections: [String: DealerConnection] = [:]

    /// Forgets the routes of the keys owned at `endpoint` (it did not answer in time): each is looked up
    /// again on its next read.
    mutating func forgetKeys(at endpoint: String) {
        for (key, entry) in table.entries where entry.endpoint == endpoint {
            table.forget(key)
            keysLookedUp.remove(key)
        }
    }
}
