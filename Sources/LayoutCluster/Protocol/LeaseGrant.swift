/// The second frame of a broker's HEARTBEAT to a worker that advertised a direct endpoint: the last
/// heartbeat of the worker's the broker received (`WorkerLoad.leaseSequence`), and how long after that
/// worker sent it the worker may answer direct reads.
///
/// Why the worker counts from when it *sent* its heartbeat, not from when it heard this one: the broker
/// received heartbeat `lease` at some instant after the worker sent it, and does not move the worker's
/// keys until it has heard nothing for `heartbeat × liveness` from then. A lease of
/// `heartbeat × (liveness − 1)` from the send therefore ends at least one heartbeat before the broker
/// may move a key, however late this frame itself arrives (a message held in a buffer during a partition
/// cannot stretch the lease). Each side measures only its own intervals on its own monotonic clock; no
/// instant is compared across machines, and the heartbeat of margin covers their rates' drift.
///
/// JSON: `{"lease": 41, "leaseMillis": 2000}`. Sent only to a worker whose READY named `direct`: other
/// workers read a HEARTBEAT of exactly one frame after the command (protocol 4).
public struct LeaseGrant: Sendable, Hashable {
    /// The worker's heartbeat the lease counts from.
    public var sequence: UInt64
    /// How long the lease lasts from that heartbeat's sending.
    public var milliseconds: Int

    public init(sequence: UInt64, milliseconds: Int) {
        self.sequence = sequence
        self.milliseconds = milliseconds
    }

    public var frame: [UInt8] {
        ControlJSON.encode(["lease": sequence, "leaseMillis": milliseconds])
    }

    public init?(frame: [UInt8]) {
        guard let object = ControlJSON.object(frame), let sequence = ControlJSON.int(object["lease"]), sequence >= 0,
              let milliseconds = ControlJSON.int(object["leaseMillis"]), milliseconds >= 0 else { return nil }
        self.init(sequence: UInt64(sequence), milliseconds: milliseconds)
    }
}
