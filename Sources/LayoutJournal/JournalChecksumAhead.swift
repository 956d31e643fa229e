import Dispatch
import Synchronization

/// The checksum of a body's record, computed on another thread from the moment its request is read,
/// while the layout is computed: the log needs it with the record, on the reply path, and for a large
/// body it is not small (about 1.7 ms for the 8 MB of a 10^6-item `prepare` with its heights in a frame).
public final class JournalChecksumAhead: Sendable {
    /// Bodies smaller than this are checksummed as they are written: a hop to another thread would
    /// cost about what it saves.
    public static let minimumBytes = 1 << 20

    private let done = DispatchGroup()
    private let checksum = Atomic<UInt64>(0)

    /// Starts computing the checksum of `source`'s record, which it keeps until then.
    public init(of source: some JournalBodySource) {
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            self.checksum.store(source.recordChecksum, ordering: .releasing)
            self.done.leave()
        }
    }

    /// The checksum, waiting for it if it is still being computed.
    public var value: UInt64 {
        done.wait()
        return checksum.load(ordering: .acquiring)
    }
}
