import CPostgreSQL
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// What a statement sent to PostgreSQL ended in, when it did not succeed.
struct PostgresFailure: Error, Sendable {
    enum Kind: Sendable {
        /// The server answered with an error: the connection is fine.
        case server(sqlState: String?, message: String, detail: String?)
        /// The statement did not run because one before it in its transaction failed.
        case notRun
        /// The connection failed (lost, refused, a protocol error): it is closed.
        case connection(String)
        /// No answer within the deadline: the connection is closed.
        case timeout
    }

    let kind: Kind

    /// The server's SQLSTATE, for a server's answer.
    var sqlState: String? {
        if case .server(let state, _, _) = kind { return state }
        return nil
    }

    /// Whether the server answered (the connection can go on being used).
    var isServerAnswer: Bool {
        switch kind {
        case .server, .notRun: true
        case .connection, .timeout: false
        }
    }

    /// What went wrong, for an operator.
    var description: String {
        switch kind {
        case .server(let state, let message, let detail):
            "\(message)\(detail.map { ": \($0)" } ?? "")\(state.map { " (SQLSTATE \($0))" } ?? "")"
        case .notRun: "not run: a statement before it in its transaction failed"
        case .connection(let message): message
        case .timeout: "no answer in time"
        }
    }
}

/// One statement of an exchange with the server.
enum PostgresCommand {
    /// Run with its SQL.
    case query(PostgresQuery)
    /// Prepare `sql` as the named statement `name`.
    case prepare(name: String, sql: String, types: [PostgresType])
    /// Run the named statement with these parameters.
    case execute(name: String, binds: [PostgresBind])
}

/// One libpq connection, used synchronously by one thread at a time.
///
/// Statements go in libpq's pipeline mode: all of an exchange's are written at once and answered in one
/// round of waiting, each followed by its own Sync, so that each outside a `BEGIN` block is a transaction
/// of its own, committed before the next one runs (a group commit's check reads what the commit before
/// it did). The socket is non-blocking and every wait is `poll` up to a deadline, since libpq's own
/// calls would wait without a bound; at the deadline the connection is closed.
final class PostgresConnection {
    private var handle: OpaquePointer?

    /// Connects and logs in (libpq's `connect_timeout` bounds it, or `deadline` when given: libpq's
    /// timeout counts whole seconds, two at least, too coarse for a lease renewal); a failure's message
    /// is libpq's.
    init(_ url: PostgresURL, deadline: DispatchTime? = nil) throws(PostgresFailure) {
        var parameters: [(String, String)] = [
            ("host", url.socketFolder ?? url.host), ("port", String(url.port)), ("user", url.user),
            ("dbname", url.database), ("sslmode", url.tlsMode.rawValue),
            ("connect_timeout", String(url.connectTimeoutSeconds)), ("application_name", url.applicationName),
            ("client_encoding", "UTF8"),
            // GSSAPI encryption is not something layoutd's URLs offer: trying it first costs a round trip.
            ("gssencmode", "disable"),
        ]
        if let password = url.password { parameters.append(("password", password)) }
        if let roots = url.rootCertificatePath ?? Self.systemRoots(for: url.tlsMode) { parameters.append(("sslrootcert", roots)) }
        let handle = Self.withCStrings(parameters.map(\.0)) { keywords in
            Self.withCStrings(parameters.map(\.1)) { values in
                deadline == nil ? PQconnectdbParams(keywords, values, 0) : PQconnectStartParams(keywords, values, 0)
            }
        }
        guard let handle else { throw PostgresFailure(kind: .connection("libpq could not allocate a connection")) }
        if let deadline {
            do throws(PostgresFailure) {
                try Self.finishConnecting(handle, until: deadline)
            } catch {
                PQfinish(handle)
                throw error
            }
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.message(of: handle)
            PQfinish(handle)
            throw PostgresFailure(kind: .connection(message))
        }
        // Notices (a ROLLBACK outside a transaction warns) would otherwise be printed on stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        guard PQsetnonblocking(handle, 1) == 0 else {
            let message = Self.message(of: handle)
            PQfinish(handle)
            throw PostgresFailure(kind: .connection(message))
        }
        self.handle = handle
    }

    deinit { close() }

    /// Drives a connection started with `PQconnectStartParams` to its end, waiting on its socket up to
    /// `deadline` (libpq's polling protocol: wait for what `PQconnectPoll` asks, then call it again).
    private static func finishConnecting(_ handle: OpaquePointer, until deadline: DispatchTime) throws(PostgresFailure) {
        guard PQstatus(handle) != CONNECTION_BAD else { throw PostgresFailure(kind: .connection(message(of: handle))) }
        var status = PGRES_POLLING_WRITING
        while true {
            switch status {
            case PGRES_POLLING_OK: return
            case PGRES_POLLING_FAILED: throw PostgresFailure(kind: .connection(message(of: handle)))
            default:
                // The socket may change between attempts (another host or address): read it each time.
                try waitUntilReady(PQsocket(handle), events: status == PGRES_POLLING_WRITING ? Int16(POLLOUT) : Int16(POLLIN), until: deadline)
                status = PQconnectPoll(handle)
            }
        }
    }

    /// Whether the connection is open: false once closed, or once libpq found it lost.
    var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    func close() {
        guard let handle else { return }
        self.handle = nil
        PQfinish(handle)
    }

    /// Reads what the server sent while the connection was idle (its notice that it is shutting down,
    /// then the end of the stream), so that a connection the server ended is seen closed before it is
    /// used rather than by the statement sent on it.
    func checkIdle() {
        guard let handle else { return }
        var poll = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poll, 1, 0) > 0 else { return }
        if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK { close() }
    }

    /// Sends `commands` at once and waits for each's answer, in order. A failure of the connection or
    /// the deadline closes it and fails every command not answered yet.
    func exchange(_ commands: [PostgresCommand], until deadline: DispatchTime) -> [Result<PostgresQueryResult, PostgresFailure>] {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            return commands.map { _ in .failure(PostgresFailure(kind: .connection("the connection was closed"))) }
        }
        var results: [Result<PostgresQueryResult, PostgresFailure>] = []
        results.reserveCapacity(commands.count)
        do throws(PostgresFailure) {
            guard PQenterPipelineMode(handle) == 1 else { throw lost(handle) }
            for command in commands {
                guard send(command, on: handle) == 1, PQpipelineSync(handle) == 1 else { throw lost(handle) }
            }
            try flush(handle, until: deadline)
            var syncs = 0
            while syncs < commands.count {
                while PQisBusy(handle) == 1 {
                    try wait(on: handle, writing: false, until: deadline)
                    guard PQconsumeInput(handle) == 1 else { throw lost(handle) }
                }
                // Nil separates one statement's answers from the next's.
                guard let result = PQgetResult(handle) else { continue }
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_PIPELINE_SYNC: syncs += 1
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK: results.append(.success(Self.answer(result)))
                case PGRES_PIPELINE_ABORTED: results.append(.failure(PostgresFailure(kind: .notRun)))
                default:
                    guard PQstatus(handle) == CONNECTION_OK else { throw lost(handle) }
                    results.append(.failure(Self.serverFailure(result)))
                }
            }
            guard PQexitPipelineMode(handle) == 1 else { throw lost(handle) }
        } catch {
            close()
            while results.count < commands.count { results.append(.failure(error)) }
        }
        return results
    }

    private func send(_ command: PostgresCommand, on handle: OpaquePointer) -> Int32 {
        switch command {
        case .query(let query):
            return Self.withParameters(query.binds) { count, types, values, lengths, formats in
                PQsendQueryParams(handle, query.sql, count, types, values, lengths, formats, 1)
            }
        case .prepare(let name, let sql, let types):
            return PQsendPrepare(handle, name, sql, Int32(types.count), types.map(\.oid))
        case .execute(let name, let binds):
            return Self.withParameters(binds) { count, _, values, lengths, formats in
                PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
            }
        }
    }

    /// Writes what libpq holds; reads meanwhile, so that a server answering a long pipeline while it is
    /// still being written never waits on a full socket of answers.
    private func flush(_ handle: OpaquePointer, until deadline: DispatchTime) throws(PostgresFailure) {
        while true {
            switch PQflush(handle) {
            case 0: return
            case 1:
                try wait(on: handle, writing: true, until: deadline)
                guard PQconsumeInput(handle) == 1 else { throw lost(handle) }
            default: throw lost(handle)
            }
        }
    }

    /// Waits until the socket can be read (or written), or throws at the deadline.
    private func wait(on handle: OpaquePointer, writing: Bool, until deadline: DispatchTime) throws(PostgresFailure) {
        try Self.waitUntilReady(PQsocket(handle), events: Int16(POLLIN) | (writing ? Int16(POLLOUT) : 0), until: deadline)
    }

    private static func waitUntilReady(_ socket: Int32, events: Int16, until deadline: DispatchTime) throws(PostgresFailure) {
        var poll = pollfd(fd: socket, events: events, revents: 0)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline.uptimeNanoseconds else { throw PostgresFailure(kind: .timeout) }
            let milliseconds = Int32(min((deadline.uptimeNanoseconds - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            let ready = Glibc.poll(&poll, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw PostgresFailure(kind: .connection(String(cString: strerror(errno)))) }
        }
    }

    private func lost(_ handle: OpaquePointer) -> PostgresFailure {
        PostgresFailure(kind: .connection(Self.message(of: handle)))
    }

    private static func message(of handle: OpaquePointer) -> String {
        guard let text = PQerrorMessage(handle) else { return "the connection failed" }
        let message = String(cString: text).trimmingWhitespace()
        return message.isEmpty ? "the connection failed" : message
    }

    private static func answer(_ result: OpaquePointer) -> PostgresQueryResult {
        let (rowCount, columnCount) = (PQntuples(result), PQnfields(result))
        let types = (0..<columnCount).map { PostgresType(oid: PQftype(result, $0)) }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var cells: [PostgresCell] = []
            cells.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                var bytes: [UInt8]?
                if PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) {
                    let length = Int(PQgetlength(result, row, column))
                    bytes = value.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
                }
                cells.append(PostgresCell(type: types[Int(column)], bytes: bytes))
            }
            rows.append(PostgresRow(cells: cells))
        }
        let tag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        return PostgresQueryResult(rows: rows, commandTag: tag)
    }

    private static func serverFailure(_ result: OpaquePointer) -> PostgresFailure {
        // PG_DIAG_SQLSTATE, PG_DIAG_MESSAGE_PRIMARY and PG_DIAG_MESSAGE_DETAIL: character macros,
        // which Swift does not import.
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: value)
        }
        let message = field("M") ?? PQresultErrorMessage(result).map { String(cString: $0).trimmingWhitespace() } ?? "an error"
        return PostgresFailure(kind: .server(sqlState: field("C"), message: message, detail: field("D")))
    }

    /// Where verify-ca and verify-full find their trusted roots when the URL names none: the system's
    /// (libpq's own default is ~/.postgresql/root.crt, which a daemon's account seldom has).
    private static func systemRoots(for mode: PostgresURL.TLSMode) -> String? {
        guard mode == .verifyCA || mode == .verifyFull else { return nil }
        return ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"].first { access($0, R_OK) == 0 }
    }

    /// A NULL-terminated array of C strings, as libpq's keyword and value lists are.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// The parameters as libpq takes them: every one in binary format, with its type, length and bytes
    /// (nil for NULL). Each array's storage is lent for the call alone, one inside the other.
    private static func withParameters(
        _ binds: [PostgresBind],
        _ body: (Int32, [UInt32], [UnsafePointer<CChar>?], [Int32], [Int32]) -> Int32
    ) -> Int32 {
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(binds.count)
        func lend(_ index: Int) -> Int32 {
            guard index < binds.count else {
                return body(Int32(binds.count), binds.map(\.type.oid), pointers, binds.map { Int32(truncatingIfNeeded: $0.bytes?.count ?? 0) }, Array(repeating: 1, count: binds.count))
            }
            guard let bytes = binds[index].bytes else {
                pointers.append(nil)
                return lend(index + 1)
            }
            return bytes.withUnsafeBytes { raw in
                // An empty value must still be a pointer: libpq reads a nil one as NULL.
                pointers.append((raw.baseAddress ?? emptyValue).assumingMemoryBound(to: CChar.self))
                return lend(index + 1)
            }
        }
        return lend(0)
    }

    /// Where an empty value points: a literal's bytes, which live as long as the program.
    private static var emptyValue: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        return String(text)
    }
}
