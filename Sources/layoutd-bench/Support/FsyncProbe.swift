import Foundation
import LayoutTestKit

/// What one fsync costs on the disk that holds the journal: `samples` times, 4 KiB appended to a file
/// in `folder` and the file synced, as a `sync` commit's WAL is. The floor of a `sync` commit.
enum FsyncProbe {
    /// The latencies in seconds, sorted.
    static func measure(in folder: String, samples: Int) throws -> [Double] {
        let path = folder + "/fsync-probe"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw BenchFailure("\(path): \(String(cString: strerror(errno)))") }
        defer {
            close(descriptor)
            unlink(path)
        }
        let page = [UInt8](repeating: 0x5A, count: 4096)
        let clock = ContinuousClock()
        var latencies: [Double] = []
        for _ in 0..<samples {
            let start = clock.now
            let written = page.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == page.count, fsync(descriptor) == 0 else {
                throw BenchFailure("\(path): write or fsync failed: \(String(cString: strerror(errno)))")
            }
            latencies.append(start.duration(to: clock.now).seconds)
        }
        return latencies.sorted()
    }
}
