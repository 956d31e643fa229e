import Foundation

/// The folder a journal's files go in (an SQLite file, a log's segments).
enum JournalFolder {
    /// Makes the folder of `path` when it is missing: `data/` of the default path is made on first
    /// start, so the README's first command needs no set-up.
    static func make(for path: String) throws(JournalError) {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw JournalError(.unreadable, "cannot make the folder \(folder) for \(path): \(error.localizedDescription)")
        }
    }
}
