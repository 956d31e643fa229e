/// What a worker's direct endpoint answered since the worker started, and what happened to its read
/// lease (docs/PROTOCOL.md §8 and §11): the `direct` member of the worker's own stats, of its heartbeat's
/// load (§10.5) and of its entry in the broker's `cluster.workers[]`.
///
/// Every figure is a count since the worker's process started: a worker that connects again to its
/// broker keeps counting, so the broker shows the process's totals, not its registration's.
public struct DirectReadTally: Sendable, Hashable {
    /// Why a direct read was answered `moved` (the keys of `movedBy`, and the `reason` label of
    /// `layoutd_direct_moved_total`).
    public enum MovedReason: String, Sendable, CaseIterable {
        /// The worker keeps no copy of the key.
        case notKept
        /// The worker's copy is of another epoch than the one the client named.
        case epoch
        /// The key is moving to another worker (FENCE).
        case fenced
        /// The worker's read lease did not hold when the answer was made.
        case lease
        /// The read named another namespace than the caller's.
        case namespace
    }

    /// `query` and one-layout `list` reads answered ok.
    public var reads = 0
    /// Reads answered `moved`, by reason.
    public var movedBy: [MovedReason: Int] = [:]
    /// Reads answered `behind` (the copy older than the read's `minVersion`).
    public var behind = 0
    /// Requests answered `read_only` (a change, or an op the direct endpoint does not answer).
    public var readOnly = 0
    /// Times the read lease lapsed because no grant came in time (not counting those a disconnect ended).
    public var leaseExpiries = 0
    /// Times a lease that still held was dropped because the connection to the broker ended or the
    /// worker left.
    public var leaseRevocations = 0

    /// Nothing counted yet.
    public init() {}

    /// Reads answered `moved`, whatever the reason.
    public var moved: Int { movedBy.values.reduce(0, +) }

    /// As JSON (`reads`, `moved`, `movedBy`, `behind`, `readOnly`, `leaseExpiries`, `leaseRevocations`),
    /// every reason listed in `movedBy` even at 0, so that the shape never depends on what happened.
    public var jsonObject: [String: Any] {
        [
            "reads": reads, "moved": moved,
            "movedBy": Dictionary(uniqueKeysWithValues: MovedReason.allCases.map { ($0.rawValue, movedBy[$0] ?? 0) }),
            "behind": behind, "readOnly": readOnly, "leaseExpiries": leaseExpiries, "leaseRevocations": leaseRevocations,
        ]
    }

    /// Reads `jsonObject`'s shape; nil for anything but an object. A member that is missing or not a
    /// count reads as 0 (a later worker may send more, an earlier one fewer), and reasons this broker does
    /// not know are left out of `movedBy`, so `moved` counts the known ones.
    public init?(jsonObject value: Any?) {
        guard let object = value as? [String: Any] else { return nil }
        func count(_ name: String, in object: [String: Any]) -> Int {
            ControlJSON.int(object[name]).map { Swift.max(0, $0) } ?? 0
        }
        reads = count("reads", in: object)
        behind = count("behind", in: object)
        readOnly = count("readOnly", in: object)
        leaseExpiries = count("leaseExpiries", in: object)
        leaseRevocations = count("leaseRevocations", in: object)
        if let reasons = object["movedBy"] as? [String: Any] {
            for reason in MovedReason.allCases {
                let value = count(reason.rawValue, in: reasons)
                if value > 0 { movedBy[reason] = value }
            }
        }
    }
}
