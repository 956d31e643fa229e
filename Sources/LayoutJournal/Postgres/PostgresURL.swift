import Foundation

/// A `postgres://` journal URL taken apart into libpq's connection parameters.
///
/// The form is libpq's, so that an operator's existing connection string works:
/// `postgres://USER[:PASSWORD]@HOST[:PORT][/DATABASE][?sslmode=…&connect_timeout=…]`. Parameters:
/// - `sslmode`: `disable`, `prefer` (the default, as libpq's), `require` (encrypted, not verified),
///   `verify-ca`, `verify-full`; `sslrootcert=PATH` for the verify modes' trust roots.
/// - `connect_timeout`: seconds to connect and log in (default 10).
/// - `query_timeout`: seconds one statement (or one group commit) may take before the connection is
///   given up (default 30); layoutd's own, as libpq has no client-side limit and the journal must never hang.
/// - `host=/DIR`: a Unix socket folder instead of TCP, as libpq takes it.
/// - `application_name`: what `pg_stat_activity` shows (default `layoutd journal`).
struct PostgresURL: Sendable, Hashable {
    enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    var host: String
    var port: Int
    /// The socket file, when `host=` names a folder.
    var unixSocketPath: String? { socketFolder.map { "\($0)/.s.PGSQL.\(port)" } }
    /// The folder of the socket, when `host=` names one (libpq's `host` then).
    var socketFolder: String?
    var user: String
    var password: String?
    var database: String
    var tlsMode: TLSMode
    var rootCertificatePath: String?
    var connectTimeoutSeconds: Int
    var queryTimeoutSeconds: Int
    var applicationName: String

    private static let parameters = ["sslmode", "sslrootcert", "connect_timeout", "query_timeout", "host", "application_name"]

    init(_ text: String) throws(JournalError) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let components = URLComponents(string: text) else {
            throw JournalError(.invalidURL, "\"\(JournalURL.postgres(url: text))\" is not a URL of the form postgres://USER@HOST:PORT/DATABASE")
        }
        var host = components.host ?? ""
        // IPv6 literals come bracketed from URLComponents on some platforms.
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host.isEmpty ? "localhost" : host
        guard components.port.map({ (1...65535).contains($0) }) ?? true else {
            throw JournalError(.invalidURL, "\(JournalURL.postgres(url: text)): the port must be 1 to 65535")
        }
        port = components.port ?? 5432
        // libpq's default user is the login name; the database's, the user.
        let user = components.user.flatMap { $0.removingPercentEncoding ?? $0 } ?? ""
        self.user = user.isEmpty ? NSUserName() : user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = String(components.path.drop { $0 == "/" })
        guard !path.contains("/") else {
            throw JournalError(.invalidURL, "\(JournalURL.postgres(url: text)): the path is the database's name, which has no \"/\"")
        }
        let database = path.removingPercentEncoding ?? path
        self.database = database.isEmpty ? self.user : database
        tlsMode = .prefer
        rootCertificatePath = nil
        connectTimeoutSeconds = 10
        queryTimeoutSeconds = 30
        applicationName = "layoutd journal"
        socketFolder = nil
        for item in components.queryItems ?? [] {
            try apply(item.name, item.value ?? "", in: text)
        }
    }

    private mutating func apply(_ name: String, _ value: String, in text: String) throws(JournalError) {
        let shown = JournalURL.postgres(url: text).description
        switch name {
        case "sslmode":
            guard let mode = TLSMode(rawValue: value) else {
                throw JournalError(.invalidURL, "\(shown): sslmode=\(value) is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tlsMode = mode
        case "sslrootcert":
            rootCertificatePath = value
        case "connect_timeout", "query_timeout":
            guard let seconds = Int(value), seconds > 0, seconds <= 3600 else {
                throw JournalError(.invalidURL, "\(shown): \(name)=\(value) is not a number of seconds from 1 to 3600")
            }
            if name == "connect_timeout" { connectTimeoutSeconds = seconds } else { queryTimeoutSeconds = seconds }
        case "host":
            guard value.hasPrefix("/") else {
                throw JournalError(.invalidURL, "\(shown): host=\(value) must be a socket folder (an absolute path); put a host name before the path")
            }
            socketFolder = value
        case "application_name":
            applicationName = value
        default:
            throw JournalError(.invalidURL, "\(shown): \(name) is not a parameter layoutd knows (it knows \(Self.parameters.joined(separator: ", ")))")
        }
    }

    /// Where the database is, for messages: never the password.
    var location: String {
        "\(unixSocketPath ?? (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"))/\(database)"
    }
}
