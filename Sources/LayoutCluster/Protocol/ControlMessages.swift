import Foundation
import LayoutServer

/// The JSON frames layoutd adds to MDP commands (PROTOCOL.md, "The broker ↔ worker protocol"): small
/// and rare (one per connection, one per heartbeat, one per rebuild), so Foundation's serializer is fine.
enum ControlJSON {
    static func encode(_ object: [String: Any]) -> [UInt8] {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { [UInt8]($0) } ?? Array("{}".utf8)
    }

    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }

    static func int(_ value: Any?) -> Int? {
        if let int = value as? Int { return int }
        if let double = value as? Double, double.rounded() == double, Swift.abs(double) < 9e15 { return Int(double) }
        return nil
    }
}

/// READY's extension frame: who the worker is, how many requests it takes at once, and every layout it
/// keeps with its version and namespace (so a restarted broker rebuilds its routing table from its
/// workers).
public struct ReadyInfo: Sendable, Hashable {
    public var extensionVersion: Int
    /// The worker's stable name (`cluster.workerId`).
    public var workerID: String
    /// Requests the broker may have outstanding at this worker (its threads plus its queue).
    public var credit: Int
    /// Jobs the worker runs at once.
    public var threads: Int
    /// Kept layouts and their versions.
    public var keys: [KeyVersion]
    /// The worker's direct endpoint as clients reach it (`cluster.direct`); nil without one. A broker
    /// gives it out in its route table and grants such a worker read leases (`LeaseGrant`).
    public var directEndpoint: String?

    public struct KeyVersion: Sendable, Hashable {
        /// The layout's key in its namespace ("" without CURVE).
        public var key: LayoutKey
        public var version: Int
        /// The epoch of the broker the layout was last changed under (protocol 4; 0: unknown). Copies of
        /// a key are ordered by (epoch, version): a broker's versions start again when it restarts.
        public var epoch: UInt64
        public init(key: LayoutKey, version: Int, epoch: UInt64 = 0) {
            self.key = key
            self.version = version
            self.epoch = epoch
        }
    }

    public init(extensionVersion: Int = WorkerProtocol.extensionVersion, workerID: String, credit: Int, threads: Int, keys: [KeyVersion]) {
        self.extensionVersion = extensionVersion
        self.workerID = workerID
        self.credit = credit
        self.threads = threads
        self.keys = keys
    }

    public var frame: [UInt8] {
        var object: [String: Any] = [
            "protocol": extensionVersion, "worker": workerID, "credit": credit, "threads": threads,
            // `[name, version]`, and the namespace third when there is one (protocol 2); from protocol 4
            // `[name, version, namespace, epoch]`, the namespace "" for the shared one.
            "keys": keys.map { entry -> [Any] in
                if extensionVersion >= WorkerProtocol.epochVersion { return [entry.key.name, entry.version, entry.key.namespace, entry.epoch] }
                return entry.key.namespace.isEmpty ? [entry.key.name, entry.version] : [entry.key.name, entry.version, entry.key.namespace]
            },
        ]
        // An optional member: a broker that does not know it ignores it (PROTOCOL.md §10.9).
        if let directEndpoint { object["direct"] = directEndpoint }
        return ControlJSON.encode(object)
    }

    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame), let version = ControlJSON.int(object["protocol"]),
              let worker = object["worker"] as? String, let credit = ControlJSON.int(object["credit"]), credit > 0,
              let threads = ControlJSON.int(object["threads"]), let keys = object["keys"] as? [[Any]] else { return nil }
        var pairs: [KeyVersion] = []
        pairs.reserveCapacity(keys.count)
        for entry in keys {
            guard (2...4).contains(entry.count), let name = entry[0] as? String, let version = ControlJSON.int(entry[1]) else { return nil }
            let namespace = entry.count >= 3 ? entry[2] as? String : ""
            guard let namespace else { return nil }
            var epoch: UInt64 = 0
            if entry.count == 4 {
                guard let value = ControlJSON.int(entry[3]), value >= 0 else { return nil }
                epoch = UInt64(value)
            }
            pairs.append(KeyVersion(key: LayoutKey(namespace: namespace, name: name), version: version, epoch: epoch))
        }
        self.init(extensionVersion: version, workerID: worker, credit: credit, threads: threads, keys: pairs)
        directEndpoint = (object["direct"] as? String).flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// A worker HEARTBEAT's extension frame: its load, for the broker's stats.
public struct WorkerLoad: Sendable, Hashable {
    public var threads = 0
    public var busy = 0
    public var queued = 0
    public var layouts = 0
    public var layoutBytes = 0
    public var itemsPrepared = 0
    /// A worker with a direct endpoint numbers its heartbeats: the broker's next HEARTBEAT names the
    /// last it received (`LeaseGrant`), and the worker's read lease runs from when it sent that one.
    public var leaseSequence: UInt64?
    /// A worker with a direct endpoint: how it answered direct reads and how its leases ended, since it
    /// started (the broker's `cluster.workers[].direct`). Nil from a worker without one, or an older one.
    public var direct: DirectReadTally?

    public init(threads: Int = 0, busy: Int = 0, queued: Int = 0, layouts: Int = 0, layoutBytes: Int = 0, itemsPrepared: Int = 0) {
        self.threads = threads
        self.busy = busy
        self.queued = queued
        self.layouts = layouts
        self.layoutBytes = layoutBytes
        self.itemsPrepared = itemsPrepared
    }

    public var frame: [UInt8] {
        var object: [String: Any] = [
            "threads": threads, "busy": busy, "queued": queued, "layouts": layouts,
            "layoutBytes": layoutBytes, "itemsPrepared": itemsPrepared,
        ]
        if let leaseSequence { object["lease"] = leaseSequence }
        // Optional, as `lease`: a broker that does not know it ignores it.
        if let direct { object["direct"] = direct.jsonObject }
        return ControlJSON.encode(object)
    }

    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame) else { return nil }
        threads = ControlJSON.int(object["threads"]) ?? 0
        busy = ControlJSON.int(object["busy"]) ?? 0
        queued = ControlJSON.int(object["queued"]) ?? 0
        layouts = ControlJSON.int(object["layouts"]) ?? 0
        layoutBytes = ControlJSON.int(object["layoutBytes"]) ?? 0
        itemsPrepared = ControlJSON.int(object["itemsPrepared"]) ?? 0
        leaseSequence = ControlJSON.int(object["lease"]).flatMap { $0 >= 0 ? UInt64($0) : nil }
        direct = DirectReadTally(jsonObject: object["direct"])
    }
}

/// RESTORE's header frame: which key, the version it must end at, and the version its recipe's
/// `prepare` produced (the recipe's bodies follow as frames). With no bodies, the worker only makes the
/// key's version count continue from `version` (a key that is not kept, or was lost).
///
/// A key in a namespace other than "" (a broker with CURVE) carries it as the member `namespace`: the
/// worker replays the recipe as a caller of that namespace and keeps the layout there.
public struct RestoreHeader: Sendable, Hashable {
    public var layout: String
    public var namespace: String
    public var version: Int
    public var base: Int

    public init(layout: String, namespace: String = "", version: Int, base: Int) {
        self.layout = layout
        self.namespace = namespace
        self.version = version
        self.base = base
    }

    public init(key: LayoutKey, version: Int, base: Int) {
        self.init(layout: key.name, namespace: key.namespace, version: version, base: base)
    }

    /// The key it rebuilds, in its namespace.
    public var key: LayoutKey { LayoutKey(namespace: namespace, name: layout) }

    public var frame: [UInt8] {
        var object: [String: Any] = ["layout": layout, "version": version, "base": base]
        if !namespace.isEmpty { object["namespace"] = namespace }
        return ControlJSON.encode(object)
    }

    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame), let layout = object["layout"] as? String,
              let version = ControlJSON.int(object["version"]), let base = ControlJSON.int(object["base"]) else { return nil }
        let namespace = object["namespace"].map { $0 as? String } ?? ""
        guard let namespace else { return nil }
        self.init(layout: layout, namespace: namespace, version: version, base: base)
    }
}

/// The body of a worker's REPLY to RESTORE.
public enum RestoreOutcome: Sendable, Hashable {
    /// Rebuilt (or, without a recipe, the version set), with its item count.
    case restored(layout: String, version: Int, items: Int)
    /// Not rebuilt: the worker set the key's version to the one after the target (the `lost` event's).
    case failed(code: String, message: String)

    public var body: [UInt8] {
        switch self {
        case let .restored(layout, version, items):
            return ControlJSON.encode(["ok": true, "layout": layout, "version": version, "items": items])
        case let .failed(code, message):
            return ControlJSON.encode(["ok": false, "error": ["code": code, "message": message]])
        }
    }

    public init?(body: [UInt8]) {
        guard let object = ControlJSON.object(body), let ok = object["ok"] as? Bool else { return nil }
        if ok {
            guard let layout = object["layout"] as? String, let version = ControlJSON.int(object["version"]) else { return nil }
            self = .restored(layout: layout, version: version, items: ControlJSON.int(object["items"]) ?? 0)
        } else {
            let error = object["error"] as? [String: Any]
            self = .failed(code: error?["code"] as? String ?? "internal", message: error?["message"] as? String ?? "")
        }
    }
}

/// EVICTED's frame (protocol 5): the layouts a worker's store pushed out of memory, each at the version
/// its `invalidated` event gave and with the epoch its copy was stamped with, as
/// `{"evicted": [[name, version, namespace, epoch], …]}` (namespace `""` for the shared one). The broker
/// believes an eviction only of the key's copy at its owner: a stale copy evicted, there or on another
/// worker, says nothing of the key (issue 14, defect 3).
public struct EvictionReport: Sendable, Hashable {
    public var evicted: [ReadyInfo.KeyVersion]

    public init(evicted: [ReadyInfo.KeyVersion]) {
        self.evicted = evicted
    }

    public var frame: [UInt8] {
        ControlJSON.encode(["evicted": evicted.map { [$0.key.name, $0.version, $0.key.namespace, $0.epoch] as [Any] }])
    }

    /// Nil for a frame that is not such an object; entries that are not `[name, version, namespace, epoch]`
    /// are skipped.
    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame), let entries = object["evicted"] as? [Any] else { return nil }
        evicted = entries.compactMap { entry in
            guard let fields = entry as? [Any], fields.count == 4, let name = fields[0] as? String, !name.isEmpty,
                  let version = ControlJSON.int(fields[1]), version > 0, let namespace = fields[2] as? String,
                  let epoch = ControlJSON.int(fields[3]), epoch >= 0 else { return nil }
            return ReadyInfo.KeyVersion(key: LayoutKey(namespace: namespace, name: name), version: version, epoch: UInt64(epoch))
        }
    }
}
