import Foundation
import PostgresNIO
import Synchronization

/// One PostgreSQL connection, used synchronously by one thread at a time (the journal thread, or a
/// reader behind a mutex), as `JournalStorage` is.
///
/// postgres-nio is asynchronous: each session owns an event loop of one thread and waits on its futures
/// from the calling thread, which is never that loop's. Every wait is bounded: postgres-nio's connect
/// timeout covers connecting and logging in, and a query not answered within the URL's `query_timeout`
/// closes the connection, which fails it. A connection that failed is closed and forgotten; the next
/// `withConnection` connects again, so that writing resumes by itself once the database is back.
final class PostgresSession {
    let url: PostgresURL
    private let group: MultiThreadedEventLoopGroup
    private let configuration: PostgresConnection.Configuration
    /// Run after each connect, so that a reconnected session is set up as the first one was.
    private let setUp: [String]
    private var connection: PostgresConnection?
    private var logger: Logger
    private var nextID = 0
    /// The statements prepared on the connection numbered `preparedOn`, by their SQL. A statement is
    /// run on the connection that prepared it, whichever is open now: one of a closed connection is
    /// never answered, so they are forgotten with the connection they were prepared on.
    fileprivate var prepared: [String: PreparedQuery] = [:]
    fileprivate var preparedOn: Int?
    /// False once the server said a statement prepared here does not exist: a pooler in transaction
    /// mode (PgBouncer's) hands each transaction to any server connection, and the statements prepared
    /// on one are unknown to the others. From then on, statements are sent with their SQL every time.
    fileprivate(set) var preparesStatements = true

    init(url: PostgresURL, setUp: [String] = []) throws(JournalError) {
        self.url = url
        self.setUp = setUp
        var configuration: PostgresConnection.Configuration
        if let socket = url.unixSocketPath {
            configuration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        } else {
            configuration = .init(host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: try Self.tls(for: url))
        }
        configuration.options.connectTimeout = .seconds(Int64(url.connectTimeoutSeconds))
        configuration.options.additionalStartupParameters = [("application_name", url.applicationName)]
        self.configuration = configuration
        // The daemon's logging system, quieted: what goes wrong reaches the operator as a JournalError.
        logger = Logger(label: "layoutd.journal.postgres")
        logger.logLevel = .error
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    deinit {
        if let connection { Self.close(connection) }
        try? group.syncShutdownGracefully()
    }

    /// Whether a connection is open now (`byteCount` asks, to answer from its cache rather than connect).
    var isConnected: Bool {
        connection.map { !$0.isClosed } ?? false
    }

    /// Runs `body` on one connection, connecting first when there is none: all of `body`'s statements go
    /// to that connection, so a transaction is never split over two. A failure that is not the server's
    /// answer to a statement closes the connection, and the next call connects again.
    func withConnection<T>(failing code: JournalError.Code, _ body: (Link) throws(JournalError) -> T) throws(JournalError) -> T {
        let link = Link(connection: try connected(failing: code), session: self, code: code)
        defer {
            if link.isBroken || link.connection.isClosed { drop() }
        }
        return try body(link)
    }

    private func connected(failing code: JournalError.Code) throws(JournalError) -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        drop()
        nextID += 1
        let future = PostgresConnection.connect(on: group.next(), configuration: configuration, id: nextID, logger: logger)
        let opened: PostgresConnection
        do {
            opened = try future.wait()
        } catch {
            throw JournalError(code, "cannot connect to PostgreSQL at \(url.location): \(Self.describe(error))")
        }
        let link = Link(connection: opened, session: self, code: code)
        do throws(JournalError) {
            for statement in setUp { try link.query(PostgresQuery(unsafeSQL: statement)) }
        } catch {
            Self.close(opened)
            throw error
        }
        connection = opened
        return opened
    }

    private func drop() {
        guard let connection else { return }
        self.connection = nil
        Self.close(connection)
    }

    /// postgres-nio asserts that a connection is closed before it goes, and the close is local: quick.
    private static func close(_ connection: PostgresConnection) {
        _ = try? connection.close().wait()
    }

    private static func tls(for url: PostgresURL) throws(JournalError) -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch url.tlsMode {
        case .disable: return .disable
        // As libpq: these encrypt without checking whom they talk to.
        case .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let path = url.rootCertificatePath { tls.trustRoots = .file(path) }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: tls)
        } catch {
            throw JournalError(.invalidURL, "cannot set up TLS for PostgreSQL at \(url.location): \(error)")
        }
        return url.tlsMode == .prefer ? .prefer(context) : .require(context)
    }

    /// What went wrong, for an operator: postgres-nio's own description hides the server's message.
    static func describe(_ error: any Error) -> String {
        if let answer = ServerAnswer(error) {
            let state = answer.sqlState.map { " (SQLSTATE \($0))" } ?? ""
            let detail = answer.detail.map { ": \($0)" } ?? ""
            return "\(answer.message ?? "an error")\(detail)\(state)"
        }
        switch error as? PostgresError {
        case .connectionClosed: return "the connection was closed"
        case .protocol(let message): return "the server's answer broke the protocol (\(message))"
        case .server, nil: break
        }
        guard let error = error as? PSQLError else { return describeUnderlying(error) }
        let underlying = error.underlying.map { ": \(describeUnderlying($0))" } ?? ""
        switch error.code {
        case .connectionError: return "the connection failed\(underlying)"
        case .serverClosedConnection: return "the server closed the connection\(underlying)"
        case .clientClosedConnection: return "the connection was closed\(underlying)"
        case .sslUnsupported: return "the server does not accept TLS (sslmode=\(PostgresURL.TLSMode.require.rawValue) or stricter asks for it)"
        case .authMechanismRequiresPassword: return "the server asks for a password, and the URL has none"
        case .unsupportedAuthMechanism: return "the server asks for an authentication method postgres-nio does not speak"
        default: return "\(error.code)\(underlying)"
        }
    }

    private static func describeUnderlying(_ error: any Error) -> String {
        var error = error
        if let connect = error as? NIOConnectionError, let first = connect.connectionErrors.first { error = first.error }
        // IOError's own text reads "connection reset (error set): Connection refused) (errno: 111)".
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }

    /// The session's connection while `withConnection`'s body runs.
    final class Link {
        let connection: PostgresConnection
        private unowned let session: PostgresSession
        private let code: JournalError.Code
        /// Set by a failure that leaves the connection in doubt: it is closed after the body.
        fileprivate(set) var isBroken = false
        /// Whether the last wait's time ran out (its timer closed the connection).
        private let deadline = Deadline()

        fileprivate init(connection: PostgresConnection, session: PostgresSession, code: JournalError.Code) {
            self.connection = connection
            self.session = session
            self.code = code
        }

        /// Where the database is, for messages.
        var location: String { session.url.location }

        /// A row's columns as `types`; a column of another type means the table is not what layoutd made.
        func decode<each Column: PostgresDecodable>(_ row: PostgresRow, as types: (repeat each Column).Type) throws(JournalError) -> (repeat each Column) {
            do {
                return try row.decode(types)
            } catch {
                throw JournalError(.incompatible, "PostgreSQL at \(location): a column is not of the type layoutd wrote (\(error)); were the journal's tables changed by hand?")
            }
        }

        /// Runs one statement and returns its rows.
        @discardableResult
        func query(_ query: PostgresQuery) throws(JournalError) -> PostgresQueryResult {
            try pipeline([query])[0]
        }

        /// Sends `queries` at once and waits for them all (one round of waiting, not one per statement):
        /// a group commit's statements. Throws the first failure; the rest then fail or, for a `COMMIT`,
        /// answer `ROLLBACK`, which the caller checks.
        func pipeline(_ queries: [PostgresQuery]) throws(JournalError) -> [PostgresQueryResult] {
            try answers(to: queries[...], until: timeLimit())
        }

        /// Runs `statements` in order, sent at once, and waits for them all: their rows. Each is prepared
        /// (a named statement) the first time this connection runs it, so the server parses and plans it
        /// once a connection rather than once a group commit, and is then sent by name with its binds.
        /// Where the server loses prepared statements (a pooler in transaction mode), each is sent with
        /// its SQL instead, from the first such loss on. The whole takes `query_timeout` at most.
        ///
        /// Those after a lost statement go again even when they ran: only a read may follow a write
        /// in `statements` (a group commit's check follows its changes).
        func run(_ statements: [PreparedStatement]) throws(JournalError) -> [[PostgresRow]] {
            let limit = timeLimit()
            guard session.preparesStatements else { return try rows(of: statements[...], until: limit) }
            if session.preparedOn != connection.id {
                session.prepared = [:]
                session.preparedOn = connection.id
            }
            let missing = statements.map(\.sql).filter { session.prepared[$0] == nil }
            if !missing.isEmpty {
                let made = try answers(collect(missing.map { connection.prepare(query: $0) }, until: limit))
                for (sql, query) in zip(missing, made) { session.prepared[sql] = query }
            }
            var prepared: [PreparedQuery] = []
            for statement in statements {
                // Unreachable: every statement was prepared above, or this threw.
                guard let query = session.prepared[statement.sql] else {
                    throw JournalError(code, "PostgreSQL at \(location): a statement was not prepared; none was sent")
                }
                prepared.append(query)
            }
            let results = collect(zip(prepared, statements).map { $0.execute($1.binds) }, until: limit)
            guard let lost = results.firstIndex(where: { if case .failure = $0 { true } else { false } }) else { return try answers(results) }
            // SQLSTATE 26000: the statement is unknown to the server connection that got it, so it did
            // not run. Those before it ran (they may have committed): those from it on go again, with
            // their SQL.
            guard case .failure(let failure) = results[lost], ServerAnswer(failure)?.sqlState == "26000" else { return try answers(results) }
            session.preparesStatements = false
            session.prepared = [:]
            return try answers(Array(results[..<lost])) + rows(of: statements[lost...], until: limit)
        }

        private func rows(of statements: ArraySlice<PreparedStatement>, until limit: NIODeadline) throws(JournalError) -> [[PostgresRow]] {
            try answers(to: statements.map(\.query)[...], until: limit).map { Array($0) }
        }

        private func answers(to queries: ArraySlice<PostgresQuery>, until limit: NIODeadline) throws(JournalError) -> [PostgresQueryResult] {
            try answers(collect(queries.map { connection.query($0, logger: session.logger) }, until: limit))
        }

        /// When a wait that starts now must end: the URL's `query_timeout`.
        private func timeLimit() -> NIODeadline {
            .now() + .seconds(Int64(session.url.queryTimeoutSeconds))
        }

        /// The answers, or the first failure thrown.
        private func answers<Answer>(_ results: [Result<Answer, any Error>]) throws(JournalError) -> [Answer] {
            var answers: [Answer] = []
            answers.reserveCapacity(results.count)
            for result in results {
                switch result {
                case .success(let answer): answers.append(answer)
                case .failure(let error): throw failure(error)
                }
            }
            return answers
        }

        /// Each of `futures` (sent already) answered, or failed, in its place. At `limit` the connection
        /// is closed and what has not answered fails: the wait is on promises of this link's own, so
        /// that a request postgres-nio never answers (one written once its channel had closed) cannot
        /// hold the journal thread either.
        private func collect<Answer: Sendable>(_ futures: [EventLoopFuture<Answer>], until limit: NIODeadline) -> [Result<Answer, any Error>] {
            let connection = connection
            let loop = connection.eventLoop
            let deadline = self.deadline
            deadline.passed.store(false, ordering: .relaxed)
            let promises = futures.map { future in
                let promise = loop.makePromise(of: Answer.self)
                future.cascade(to: promise)
                return promise
            }
            // A promise completes once: the timer's failure is dropped where the answer came first.
            let timer = loop.scheduleTask(deadline: limit) {
                deadline.passed.store(true, ordering: .relaxed)
                for promise in promises { promise.fail(QueryTimeout()) }
                let _: EventLoopFuture<Void> = connection.close()
            }
            defer { timer.cancel() }
            return promises.map { promise in Result { try promise.futureResult.wait() } }
        }

        /// `failure` for the operator; marks the connection broken unless the server answered it.
        private func failure(_ failure: any Error) -> JournalError {
            if failure is QueryTimeout || deadline.passed.load(ordering: .relaxed) {
                isBroken = true
                return JournalError(code, "PostgreSQL at \(session.url.location) did not answer within \(session.url.queryTimeoutSeconds) s (query_timeout); the connection was closed")
            }
            if ServerAnswer(failure) == nil { isBroken = true }
            return JournalError(code, "PostgreSQL at \(session.url.location): \(PostgresSession.describe(failure))")
        }

        /// Runs `body` between `BEGIN` and `COMMIT`, rolling back when it throws.
        func transaction<T>(_ body: () throws(JournalError) -> T) throws(JournalError) -> T {
            try query("BEGIN")
            let value: T
            do {
                value = try body()
            } catch {
                rollBack()
                throw error
            }
            try commit()
            return value
        }

        /// `COMMIT`, checked: in a transaction that an error aborted it answers `ROLLBACK`, not an error.
        func commit() throws(JournalError) {
            let answer = try query("COMMIT")
            guard answer.metadata.command == "COMMIT" else {
                throw JournalError(code, "PostgreSQL at \(session.url.location) rolled the transaction back (it answered \(answer.metadata.command) to COMMIT)")
            }
        }

        func rollBack() {
            do {
                try query("ROLLBACK")
            } catch {
                isBroken = true
            }
        }
    }
}

/// What a request that did not answer in time fails with.
private struct QueryTimeout: Error {}

/// Whether a query's time ran out, set on the event loop and read by the waiting thread.
private final class Deadline: Sendable {
    let passed = Atomic(false)
}

/// A statement for `PostgresSession.Link.run`: SQL with `$n` parameters, and their values.
struct PreparedStatement {
    let sql: String
    let binds: [PostgresData]

    /// `values` as the statement's parameters `$1`, `$2`, … (nil for a NULL of `nullType`).
    init(_ sql: String, _ values: [(any PostgresEncodable)?], nullType: PostgresDataType = .text) throws(JournalError) {
        self.sql = sql
        var binds: [PostgresData] = []
        binds.reserveCapacity(values.count)
        for value in values {
            guard let value else {
                binds.append(PostgresData(type: nullType, value: nil))
                continue
            }
            var buffer = ByteBuffer()
            do {
                try value.encode(into: &buffer, context: .default)
            } catch {
                throw JournalError(.writeFailed, "cannot encode parameter $\(binds.count + 1) for PostgreSQL: \(error)")
            }
            binds.append(PostgresData(type: value.psqlType, value: buffer))
        }
        self.binds = binds
    }

    /// The same statement with its SQL, not prepared.
    var query: PostgresQuery {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds { bindings.append(bind) }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// The server's answer to a statement that failed, in either of postgres-nio's error types: its
/// current one, and the one it still throws from `prepare(query:)` and `PreparedQuery.execute`.
private struct ServerAnswer {
    let sqlState: String?
    let message: String?
    let detail: String?

    /// Nil when `error` is not the server's answer (a connection lost, a timeout).
    init?(_ error: any Error) {
        if let error = error as? PSQLError, error.code == .server, let info = error.serverInfo {
            (sqlState, message, detail) = (info[.sqlState], info[.message], info[.detail])
        } else if case .server(let answer) = error as? PostgresError {
            (sqlState, message, detail) = (answer.fields[.sqlState], answer.fields[.message], answer.fields[.detail])
        } else {
            return nil
        }
    }
}
