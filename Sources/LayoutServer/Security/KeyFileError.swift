/// A key file (the server's secret key, the clients' allow-list) that cannot be used: which file, the
/// line at fault when there is one, and what is wrong with it.
public struct KeyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as configured.
    public var path: String
    /// The line at fault, from 1; nil when the file as a whole is at fault (missing, unreadable).
    public var line: Int?
    public var message: String

    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        "\(path)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}
