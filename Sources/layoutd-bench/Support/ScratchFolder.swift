import Foundation
import LayoutTestKit

/// A folder of its own under the system's temporary folder (`TMPDIR`, else /tmp) for the journal files
/// of a run, removed with everything in it by `remove()`.
struct ScratchFolder {
    let path: String

    init(prefix: String) throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/\(prefix)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else { throw BenchFailure("cannot make a temporary folder: \(String(cString: strerror(errno)))") }
        path = template.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { String(cString: $0) } ?? ""
        }
    }

    /// A file path inside the folder.
    func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Removes the folder, trying again for up to a second: a stopped daemon's SQLite connections close
    /// when its journal is freed, and SQLite deleting a `-wal` file while the folder is walked makes one
    /// pass fail.
    func remove() {
        for _ in 0..<20 {
            try? FileManager.default.removeItem(atPath: path)
            guard FileManager.default.fileExists(atPath: path) else { return }
            usleep(50_000)
        }
        var standardError = StandardError()
        print("layoutd-bench: could not remove \(path)", to: &standardError)
    }
}
