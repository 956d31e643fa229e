import Foundation

/// The paths of the log segments beside the journal at `path`, in order.
func logSegments(of path: String) throws -> [String] {
    let folder = (path as NSString).deletingLastPathComponent
    let prefix = (path as NSString).lastPathComponent + "-log."
    return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(prefix) }.sorted().map { folder + "/" + $0 }
}

/// The log segment whose records hold `text`.
func segment(holding text: String, of path: String) throws -> String? {
    try logSegments(of: path).first { (try? Data(contentsOf: URL(fileURLWithPath: $0)))?.range(of: Data(text.utf8)) != nil }
}

/// Polls `condition` for up to 30 s: whether it came true.
func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try condition()
}
