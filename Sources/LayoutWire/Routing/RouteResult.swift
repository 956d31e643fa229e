/// `route`'s result (PROTOCOL.md §11): the live workers and the kept keys asked about, each with its
/// epoch, version and, when it is settled at a live worker, that worker.
public struct RouteResult: WireResult, Hashable, Sendable {
    public struct Worker: Hashable, Sendable {
        public var name: String
        /// Its direct endpoint, when it has one.
        public var direct: String?

        public init(name: String, direct: String? = nil) {
            self.name = name
            self.direct = direct
        }
    }

    public struct Key: Hashable, Sendable {
        public var layout: String
        public var epoch: UInt64
        public var version: Int
        /// The worker it is settled at; nil while it moves, is rebuilt or waits for its worker.
        public var worker: String?

        public init(layout: String, epoch: UInt64, version: Int, worker: String? = nil) {
            self.layout = layout
            self.epoch = epoch
            self.version = version
            self.worker = worker
        }
    }

    /// `"broker"`, or `"daemon"` for a single daemon's answer (which has no table); nil leaves it out.
    public var role: String?
    /// The table's version.
    public var version: Int
    /// The broker's epoch.
    public var epoch: UInt64
    public var workers: [Worker]
    public var keys: [Key]

    public init(role: String? = nil, version: Int, epoch: UInt64, workers: [Worker], keys: [Key]) {
        self.role = role
        self.version = version
        self.epoch = epoch
        self.workers = workers
        self.keys = keys
    }

    /// A single daemon's answer: no workers, no keys, so every read goes to the front it asked.
    public static let standalone = RouteResult(role: "daemon", version: 0, epoch: 0, workers: [], keys: [])

    public func encode(into writer: inout JSONWriter) {
        writer.write(byte: UInt8(ascii: "{"))
        if let role {
            writer.write(raw: "\"role\":")
            writer.write(role)
            writer.write(byte: UInt8(ascii: ","))
        }
        writer.write(raw: "\"version\":")
        writer.write(version)
        writer.write(raw: ",\"epoch\":")
        writer.write(Int64(clamping: epoch))
        writer.write(raw: ",\"workers\":[")
        for (index, worker) in workers.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(raw: "{\"worker\":")
            writer.write(worker.name)
            if let direct = worker.direct {
                writer.write(raw: ",\"direct\":")
                writer.write(direct)
            }
            writer.write(byte: UInt8(ascii: "}"))
        }
        writer.write(raw: "],\"keys\":[")
        for (index, key) in keys.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(raw: "{\"layout\":")
            writer.write(key.layout)
            writer.write(raw: ",\"epoch\":")
            writer.write(Int64(clamping: key.epoch))
            writer.write(raw: ",\"version\":")
            writer.write(key.version)
            if let worker = key.worker {
                writer.write(raw: ",\"worker\":")
                writer.write(worker)
            }
            writer.write(byte: UInt8(ascii: "}"))
        }
        writer.write(raw: "]}")
    }

    public var estimatedByteCount: Int {
        64 + workers.reduce(0) { $0 + 32 + $1.name.utf8.count + ($1.direct?.utf8.count ?? 0) }
            + keys.reduce(0) { $0 + 72 + $1.layout.utf8.count + ($1.worker?.utf8.count ?? 0) }
    }
}

/// The `route` event (PROTOCOL.md §11): the table's version moved on.
public struct RouteEvent: Hashable, Sendable {
    /// The most names an event lists; a pass that changed more keys says none (look your keys up again).
    public static let maxLayouts = 256

    public var version: Int
    /// The keys whose owner or epoch changed since the last event; nil when the live workers changed,
    /// or more than `maxLayouts` keys did: every key should be looked up again.
    public var layouts: [String]?

    public init(version: Int, layouts: [String]? = nil) {
        self.version = version
        self.layouts = layouts.flatMap { $0.count <= Self.maxLayouts ? $0 : nil }
    }

    /// The event on its `route` topic.
    public var wireEvent: WireEvent {
        var writer = JSONWriter(capacity: 48 + (layouts?.reduce(0) { $0 + 4 + $1.utf8.count } ?? 0))
        writer.write(raw: "{\"event\":\"route\",\"version\":")
        writer.write(version)
        if let layouts {
            writer.write(raw: ",\"layouts\":[")
            for (index, name) in layouts.enumerated() {
                if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
                writer.write(name)
            }
            writer.write(byte: UInt8(ascii: "]"))
        }
        writer.write(byte: UInt8(ascii: "}"))
        return WireEvent(topic: Array("route".utf8), body: writer.finish())
    }
}
