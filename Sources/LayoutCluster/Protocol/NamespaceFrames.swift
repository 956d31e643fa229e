import LayoutServer

/// The caller's frame of a REQUEST (protocol 2, brokers with CURVE): who sent the request, as the broker
/// learned it from the client's connection, so that the worker runs it in that caller's namespace with
/// that caller's rights. One byte of flags (bit 0: admin; the others 0), then the namespace in UTF-8.
/// Binary, not JSON: it goes with every request.
extension Caller {
    /// The frame that carries this caller to a worker.
    public var workerFrame: [UInt8] {
        [isAdmin ? 1 : 0] + Array(namespace.utf8)
    }

    /// The caller a REQUEST's frame names; nil when the frame is malformed.
    public init?(workerFrame frame: [UInt8]) {
        guard let flags = frame.first, flags <= 1, let namespace = String(validating: frame.dropFirst(), as: UTF8.self) else { return nil }
        self.init(namespace: namespace, isAdmin: flags == 1)
    }
}

/// RELEASE's frames: one per key, the key's name in UTF-8, as in protocol 1 for the shared namespace "".
/// Keys of another namespace (protocol 2) follow an empty frame and a frame naming their namespace; a
/// name is never empty (the decoder refuses an empty `layout`), so an empty frame can only start such a
/// group. `["a", "", "alice", "feed", "wall", "", "bob", "feed"]` releases "a" in "", "feed" and "wall"
/// of alice, and "feed" of bob.
public enum ReleaseFrames {
    public static func encode(_ keys: [LayoutKey]) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var byNamespace: [String: [String]] = [:]
        for key in keys {
            if key.namespace.isEmpty {
                frames.append(Array(key.name.utf8))
            } else {
                byNamespace[key.namespace, default: []].append(key.name)
            }
        }
        for (namespace, names) in byNamespace.sorted(by: { $0.key < $1.key }) {
            frames.append([])
            frames.append(Array(namespace.utf8))
            frames += names.map { Array($0.utf8) }
        }
        return frames
    }

    /// The keys the frames name; frames that name none (an empty group) are skipped.
    public static func decode(_ frames: [[UInt8]]) -> [LayoutKey] {
        var keys: [LayoutKey] = []
        var namespace = ""
        var index = frames.startIndex
        while index < frames.endIndex {
            let frame = frames[index]
            if frame.isEmpty {
                index += 1
                guard index < frames.endIndex else { break }
                namespace = String(decoding: frames[index], as: UTF8.self)
            } else {
                keys.append(LayoutKey(namespace: namespace, name: String(decoding: frame, as: UTF8.self)))
            }
            index += 1
        }
        return keys
    }
}
