#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `poll(2)` over a fixed list of file descriptors: the sockets' `ZMQ_FD`s and the mailbox pipe.
///
/// Why not `zmq_poll`: for every socket it polls, `zmq_poll` reads `ZMQ_EVENTS`, and for an idle socket
/// each read is a `getpid` and a `poll` of that socket's own mailbox, on the first pass and again after
/// the wait. With the front, stats and events sockets that was some ten system calls per wait on the
/// I/O thread, several times the cost of the wait itself. Here a wait is one `poll`; the I/O loop
/// reads a socket only when its descriptor fired or an operation on it may have consumed the signal.
public struct DescriptorPoll {
    private var descriptors: [pollfd]

    public init(_ fileDescriptors: [Int32]) {
        descriptors = fileDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    }

    /// The descriptors that became readable, as bits by position in the list (bit 0 the first).
    public struct Ready {
        let bits: UInt32
        public func contains(_ index: Int) -> Bool { bits & (1 << UInt32(index)) != 0 }
    }

    /// Waits until a descriptor is readable or `timeout` passes (`.zero` only looks). A signal that
    /// interrupts the wait reports nothing ready.
    public mutating func wait(timeout: Duration) throws(ServerError) -> Ready {
        let count = nfds_t(descriptors.count)
        let result = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, count, Self.milliseconds(timeout)) }
        if result < 0 {
            guard errno == EINTR else { throw ServerError("poll failed: errno \(errno)") }
            return Ready(bits: 0)
        }
        guard result > 0 else { return Ready(bits: 0) }
        var bits: UInt32 = 0
        for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
            bits |= 1 << UInt32(index)
        }
        return Ready(bits: bits)
    }

    /// Whole milliseconds, rounded up so that a short wait is never a busy look.
    static func milliseconds(_ timeout: Duration) -> Int32 {
        guard timeout > .zero else { return 0 }
        let (seconds, attoseconds) = timeout.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
