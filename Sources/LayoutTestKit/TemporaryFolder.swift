import Foundation

/// A folder of a test's or a benchmark's own, under `TMPDIR`, removed when it is let go.
public final class TemporaryFolder: Sendable {
    public let path: String

    public init(_ label: String = "layoutd-test") {
        path = NSTemporaryDirectory() + label + "-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// A journal file in the folder (`journal.url` and its path).
    public var journalURL: String { "sqlite:\(journalPath)" }
    public var journalPath: String { file("layoutd.db") }
}
