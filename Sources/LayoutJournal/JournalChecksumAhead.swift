import Dispatch
import Synchronization

/// The checksum of a body's record, computed on another thread from the moment its request is read,
/// while the layout is computed: the log needs it with the record, on the reply path, and for a large
/// body it is not small (about 1.7 ms for the 8 MB of a 10^6-item `prepare` with its heights in a frame).
public final class JournalChecksumAhead: Sendable {
    /// Bodies smaller than this are checksummed as they are written: a hop to another thread would
    /// cost about what it saves.
    public static let minimumBytes = 1 << 20

    private let source: any JournalBodySource
    private let done = DispatchGroup()
    private let checksum = Atomic<UInt64>(0)
    /// Whoever sets this computes the checksum: the other thread, or `value` when it is asked for
    /// before that thread began (the queue may have no thread free: its threads are the workers').
    private let claimed = Atomic<Bool>(false)

    /// Starts computing the checksum of `source`'s record, which it keeps until then.
    public init(of source: some JournalBodySource) {
        self.source = source
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { self.computeIfUnclaimed() }
    }

    /// The checksum, waiting for it if another thread is computing it.
    public var value: UInt64 {
        computeIfUnclaimed()
        done.wait()
        return checksum.load(ordering: .acquiring)
    }

    private func computeIfUnclaimed() {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        checksum.store(source.recordChecksum, ordering: .releasing)
        done.leave()
    }
}
