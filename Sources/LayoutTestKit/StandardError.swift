#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// stderr as a `TextOutputStream`, through the file descriptor (libc's `stderr` is shared mutable state
/// that Swift 6 will not touch).
public struct StandardError: TextOutputStream {
    public init() {}

    public mutating func write(_ string: String) {
        var text = string
        text.withUTF8 { bytes in _ = systemWrite(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }
}

/// libc's write(2), named apart from `TextOutputStream.write(_:)`.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}
