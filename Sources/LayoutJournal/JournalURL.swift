/// Where the journal lives (`journal.url`): `sqlite:PATH`, `postgres://…`, or `none`.
public enum JournalURL: Sendable, Hashable, CustomStringConvertible {
    /// No journal: layouts live in process memory only (what layoutd did before it had one).
    case none
    /// One SQLite file (WAL mode), the embedded default; a relative path is under the working directory.
    case sqlite(path: String)
    /// A PostgreSQL database, shared by the brokers of a cluster.
    case postgres(url: String)

    /// The default: a file under the working directory, so that the README's first command keeps what
    /// it was told across restarts with no set-up.
    public static let defaultValue = JournalURL.sqlite(path: "data/layoutd.db")

    public init(parsing text: String) throws(JournalError) {
        if text == "none" {
            self = .none
        } else if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            // `sqlite:///abs/path` and `sqlite://rel` as URLs write them are taken too.
            if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
            guard !path.isEmpty else { throw JournalError(.invalidURL, "sqlite: needs a file path, as in sqlite:data/layoutd.db") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            // Taken apart now, so that a mistyped parameter stops the configuration, not the first open.
            _ = try PostgresURL(text)
            self = .postgres(url: text)
        } else {
            throw JournalError(.invalidURL, "\"\(text)\" is not sqlite:PATH, postgres://… or none")
        }
    }

    /// Written back as it is parsed, with a PostgreSQL password left out (logs and stats show it).
    public var description: String {
        switch self {
        case .none: return "none"
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let url): return Self.redactingPassword(url)
        }
    }

    /// `sqlite`, `postgres` or `none`.
    public var kind: String {
        switch self {
        case .none: return "none"
        case .sqlite: return "sqlite"
        case .postgres: return "postgres"
        }
    }

    private static func redactingPassword(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url[schemeEnd.upperBound...].lastIndex(of: "@") else { return url }
        let credentials = url[schemeEnd.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

/// When an acknowledged change is durable (`journal.durability`).
public enum JournalDurability: String, Sendable, Hashable, CaseIterable {
    /// The reply waits for the commit to reach the disk: nothing is acknowledged that a power cut can take.
    case sync
    /// The reply waits for the write, not the disk: a process crash loses nothing, a power cut at most
    /// `journal.syncMillis` (Redis's `appendfsync everysec`).
    case async
}
