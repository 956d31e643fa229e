/// Why the journal could not do what it was asked: a code, and a message an operator can act on.
public struct JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The journal cannot be opened or read at all (a missing folder that cannot be made, not a database).
        case unreadable
        /// The journal was written by another layoutd format or for another role: refused, never misread.
        case incompatible
        /// A write did not reach the journal (a full disk, a database that went away).
        case writeFailed
        /// A record's bytes are not what was written (its checksum differs).
        case corrupt
        /// `journal.url` is not one layoutd knows.
        case invalidURL
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "journal \(code.rawValue): \(message)" }
}
