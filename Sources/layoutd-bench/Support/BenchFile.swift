import Foundation

/// Sizes of the journal files a bench leaves.
enum BenchFile {
    /// The file's size in bytes; 0 when it is not there.
    static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
