#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe that any thread writes to wake the I/O thread out of `zmq_poll`.
///
/// Why not an inproc socket: a ZeroMQ socket belongs to one thread, and Dispatch workers are not fixed
/// threads; a pipe may be written from any thread and polled next to the sockets. (A pipe rather than
/// eventfd: Glibc's Swift module does not expose eventfd, and a pipe is portable.)
public final class WakeUpSignal: Sendable {
    /// The read end, to poll for readability.
    public let fileDescriptor: Int32
    private let writeEnd: Int32

    public init() throws(ServerError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ServerError("pipe failed: errno \(errno)") }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Wakes the poller. A full pipe (EAGAIN) is already readable, so losing that byte loses nothing.
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after waking.
    public func drain() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            // A read that does not fill the buffer has emptied the pipe: no second read to learn so.
            while read(fileDescriptor, buffer.baseAddress, buffer.count) == buffer.count {}
        }
    }
}
