#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a process holds of the machine, read from Linux's `/proc/<pid>/` (nil elsewhere): the
/// `process_*` metrics, and what the soak suite reads off a daemon it runs as a child.
public struct ProcessUsage: Sendable, Hashable {
    /// VmRSS: resident memory now, in bytes.
    public var residentBytes: Int
    /// VmHWM: the most memory ever resident since the process started, in bytes.
    public var residentPeakBytes: Int
    /// VmSize: the virtual address space, in bytes.
    public var virtualBytes: Int
    /// User plus system CPU time, in seconds.
    public var cpuSeconds: Double
    /// Open file descriptors (sockets included).
    public var openFileDescriptors: Int

    /// This process.
    public static func current() -> ProcessUsage? {
        read(directory: "/proc/self")
    }

    /// Another process of this machine, e.g. a child.
    public static func of(processID: Int32) -> ProcessUsage? {
        read(directory: "/proc/\(processID)")
    }

    private static func read(directory: String) -> ProcessUsage? {
        guard let status = readText("\(directory)/status"), let stat = readText("\(directory)/stat") else { return nil }
        var resident: Int?
        var peak: Int?
        var virtual: Int?
        for line in status.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { resident = kilobytes(in: line) }
            if line.hasPrefix("VmHWM:") { peak = kilobytes(in: line) }
            if line.hasPrefix("VmSize:") { virtual = kilobytes(in: line) }
        }
        guard let resident, let peak, let virtual else { return nil }
        return ProcessUsage(
            residentBytes: resident * 1024, residentPeakBytes: peak * 1024, virtualBytes: virtual * 1024,
            cpuSeconds: cpuSeconds(inStat: stat) ?? 0,
            openFileDescriptors: countEntries(in: "\(directory)/fd")
        )
    }

    /// `utime` and `stime` (fields 14 and 15 of /proc/<pid>/stat, in clock ticks), counted after the
    /// command name's closing parenthesis since the name itself may hold spaces.
    private static func cpuSeconds(inStat stat: String) -> Double? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): utime is field 14, stime field 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticks > 0 ? (user + system) / ticks : nil
    }

    /// "VmRSS:\t  1688 kB" → 1688.
    private static func kilobytes(in line: Substring) -> Int? {
        line.split(separator: " ", omittingEmptySubsequences: true).lazy.compactMap { Int($0.filter(\.isNumber)) }.first
    }

    private static func countEntries(in path: String) -> Int {
        guard let directory = opendir(path) else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return count
    }

    /// A /proc file, read to its end (its reported size is 0, so it cannot be read by size).
    private static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// libc's read(2), named apart from `ProcessUsage.read(directory:)`.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
