#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The clock every lease is timed on (a worker's read lease, the active broker's serving window): one
/// that keeps counting while the host or VM is suspended. On Linux that is `CLOCK_BOOTTIME`; the
/// monotonic clock (`DispatchTime`, `CLOCK_MONOTONIC`) stops during a suspension, so a process resumed
/// after its lease ran out would believe it still held. (Darwin's `CLOCK_MONOTONIC` counts sleep.)
public enum LeaseClock {
    /// Nanoseconds since an arbitrary fixed point, suspensions included.
    @inline(__always)
    public static func now() -> UInt64 {
        var time = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_BOOTTIME, &time)
        #else
        clock_gettime(CLOCK_MONOTONIC, &time)
        #endif
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
