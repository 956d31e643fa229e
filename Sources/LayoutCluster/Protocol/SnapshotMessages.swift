import LayoutServer

/// SNAPSHOT's header frame (protocol 3): the key whose layout the broker wants as a `prepare` body, so
/// that its recipe can start over from it. A key in a namespace other than "" carries it as `namespace`.
public struct SnapshotRequest: Sendable, Hashable {
    public var layout: String
    public var namespace: String

    public init(key: LayoutKey) {
        layout = key.name
        namespace = key.namespace
    }

    /// The key to snapshot, in its namespace.
    public var key: LayoutKey { LayoutKey(namespace: namespace, name: layout) }

    public var frame: [UInt8] {
        var object: [String: Any] = ["layout": layout]
        if !namespace.isEmpty { object["namespace"] = namespace }
        return ControlJSON.encode(object)
    }

    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame), let layout = object["layout"] as? String, !layout.isEmpty else { return nil }
        let namespace = object["namespace"].map { $0 as? String } ?? ""
        guard let namespace else { return nil }
        self.init(key: LayoutKey(namespace: namespace, name: layout))
    }
}

/// The header frame of a worker's REPLY to SNAPSHOT. Taken, it is followed by a frame holding the
/// `prepare` body that rebuilds the layout exactly as it stands at `version`; not taken (no such layout,
/// a full queue, a body that would not rebuild it), it is the only frame.
public enum SnapshotOutcome: Sendable, Hashable {
    /// The body that follows rebuilds `layout` at `version`, with its item count.
    case taken(layout: String, version: Int, items: Int)
    /// No body follows; nothing changed on the worker.
    case failed(code: String, message: String)

    public var frame: [UInt8] {
        switch self {
        case let .taken(layout, version, items):
            return ControlJSON.encode(["ok": true, "layout": layout, "version": version, "items": items])
        case let .failed(code, message):
            return ControlJSON.encode(["ok": false, "error": ["code": code, "message": message]])
        }
    }

    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame), let ok = object["ok"] as? Bool else { return nil }
        if ok {
            guard let layout = object["layout"] as? String, let version = ControlJSON.int(object["version"]) else { return nil }
            self = .taken(layout: layout, version: version, items: ControlJSON.int(object["items"]) ?? 0)
        } else {
            let error = object["error"] as? [String: Any]
            self = .failed(code: error?["code"] as? String ?? "internal", message: error?["message"] as? String ?? "")
        }
    }
}
