/// The commands of the broker ↔ worker protocol (PROTOCOL.md, "The broker ↔ worker protocol"): the
/// five worker commands of ZeroMQ RFC 7/MDP, with their MDP numbers, and layoutd's extensions, which
/// a broker only sends to workers that declared them in READY.
public enum WorkerCommand: UInt8, Sendable, Hashable, CaseIterable {
    /// Worker → broker, once per connection: service name and the layoutd extension frame.
    case ready = 0x01
    /// Broker → worker: a request token, an empty delimiter and the client's body; with CURVE, the
    /// caller's frame before the body (extension, protocol 2: see `Caller.workerFrame`).
    case request = 0x02
    /// Worker → broker: the token, an empty delimiter and the reply body.
    case reply = 0x03
    /// Both ways; a worker's carries an optional load frame (extension).
    case heartbeat = 0x04
    /// Both ways: the sender ends the conversation.
    case disconnect = 0x05
    /// Extension, broker → worker: rebuild a layout from its recipe at a given version.
    case restore = 0x81
    /// Extension, broker → worker: forget these keys without publishing anything (they moved). See
    /// `ReleaseFrames` for keys in a namespace.
    case release = 0x82
    /// Extension (protocol 3), broker → worker: answer a key's layout as the body of a `prepare` that
    /// rebuilds it, and the version it stands at (see `SnapshotRequest`, `SnapshotOutcome`).
    case snapshot = 0x83
    /// Extension (protocol 5), worker → broker: layouts its store pushed out of memory, each at the
    /// version of its `invalidated` event (see `EvictionReport`). On the DEALER, in order with the
    /// worker's replies, so the broker knows which worker evicted which copy (issue 14, defect 3).
    case evicted = 0x84
    /// Extension, broker → worker with a direct endpoint: stop answering direct reads of a key that is
    /// moving to another worker, and REPLY once done (see `FenceRequest`). Sent only to a worker whose
    /// READY named `direct`.
    case fence = 0x85

    /// The command's frame: one byte.
    public var frame: [UInt8] { [rawValue] }
}

/// Constants of the protocol.
public enum WorkerProtocol {
    /// The MDP/Worker protocol frame, "MDPW01".
    public static let header: [UInt8] = Array("MDPW01".utf8)
    /// The service a layoutd worker offers in READY.
    public static let serviceName = "layoutd"
    /// The version of layoutd's extensions; READY declares it. Version 2 adds CURVE namespaces: the
    /// caller's frame in REQUEST, a namespace in READY's keys, RESTORE's header and RELEASE, and in events.
    /// Version 3 adds SNAPSHOT. Version 4 adds epochs: the broker's epoch in its HEARTBEAT, and the
    /// epoch each kept layout was last changed under in READY's keys. Version 5 adds EVICTED.
    public static let extensionVersion = 5
    /// The first version that reports its evictions in EVICTED.
    public static let evictionVersion = 5
    /// The first version with epochs.
    public static let epochVersion = 4
    /// The first version with SNAPSHOT: a broker asks only workers of this version or later for one.
    public static let snapshotVersion = 3
    /// The first version with namespaces: the oldest a broker with CURVE takes.
    public static let namespaceVersion = 2
    /// The version before namespaces: a broker without CURVE still takes its workers (it never sends
    /// them anything version 2 added); a broker with CURVE refuses them, since they would run every
    /// client's request in one shared namespace.
    public static let namespacelessVersion = 1

    /// Whether `frame` is the protocol header.
    public static func isHeader(_ frame: UnsafeRawBufferPointer) -> Bool {
        frame.count == header.count && frame.elementsEqual(header)
    }
}

/// The broker's name for one request it sent a worker: 8 bytes, little-endian, in the REQUEST and
/// RESTORE frame where MDP puts the client's address. The broker keeps the client's real envelope
/// itself, so a worker never sees it.
public struct RequestToken: Hashable, Sendable, Comparable {
    public var value: UInt64

    public init(_ value: UInt64) {
        self.value = value
    }

    /// The token in `frame`, when it is 8 bytes.
    public init?(frame: UnsafeRawBufferPointer) {
        guard frame.count == 8 else { return nil }
        value = UInt64(littleEndian: frame.loadUnaligned(as: UInt64.self))
    }

    public init?(frame: [UInt8]) {
        guard let token = frame.withUnsafeBytes({ RequestToken(frame: $0) }) else { return nil }
        self = token
    }

    public var frame: [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    public static func < (lhs: RequestToken, rhs: RequestToken) -> Bool { lhs.value < rhs.value }
}
