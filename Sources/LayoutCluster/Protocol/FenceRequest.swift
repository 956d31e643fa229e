import LayoutServer

/// FENCE's header frame (`token, "", header`): the key a worker must stop answering direct reads of,
/// because the broker is moving it to another worker. The worker REPLYs `{"ok": true}` once no direct
/// read of the key will be answered there any more; the broker sends the key's rebuild to the new owner
/// only after that reply, so no change made there can be missed by a direct read at the old owner.
///
/// JSON: `{"layout": "feed"}`, with `"namespace"` for a key of another namespace than the shared one.
public struct FenceRequest: Sendable, Hashable {
    public var key: LayoutKey

    public init(key: LayoutKey) {
        self.key = key
    }

    public var frame: [UInt8] {
        var object: [String: Any] = ["layout": key.name]
        if !key.namespace.isEmpty { object["namespace"] = key.namespace }
        return ControlJSON.encode(object)
    }

    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame), let layout = object["layout"] as? String, !layout.isEmpty else { return nil }
        let namespace = object["namespace"].map { $0 as? String } ?? ""
        guard let namespace else { return nil }
        self.init(key: LayoutKey(namespace: namespace, name: layout))
    }

    /// The REPLY body.
    public static let done: [UInt8] = Array(#"{"ok":true}"#.utf8)
}
