import LayoutTestKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's resident memory, from Linux's /proc/self/status (nil elsewhere).
enum ProcessMemory {
    struct Status: Sendable {
        /// VmRSS: resident now.
        var residentBytes: Int
        /// VmHWM: the most ever resident since start or since `resetPeak()`.
        var peakResidentBytes: Int
    }

    static func status() -> Status? {
        guard let text = readFile("/proc/self/status") else { return nil }
        var resident: Int?
        var peak: Int?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { resident = kilobytes(in: line) }
            if line.hasPrefix("VmHWM:") { peak = kilobytes(in: line) }
        }
        guard let resident, let peak else { return nil }
        return Status(residentBytes: resident * 1024, peakResidentBytes: peak * 1024)
    }

    /// Sets VmHWM back to the current VmRSS (Linux ≥ 4.0: writing 5 to clear_refs). Returns whether it worked.
    @discardableResult
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// "VmRSS:\t  1688 kB" → 1688.
    private static func kilobytes(in line: Substring) -> Int? {
        line.split(separator: " ", omittingEmptySubsequences: true)
            .lazy
            .compactMap { Int($0.filter(\.isNumber)) }
            .first
    }

    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd)
    }
}

/// Everything readable from `fd` until end of file, as UTF-8 text; nil on a read error.
func readAll(_ fd: Int32) -> String? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count == 0 { break }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
