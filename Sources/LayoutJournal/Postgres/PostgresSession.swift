import Dispatch

/// One PostgreSQL connection, used synchronously by one thread at a time (the journal thread, or a
/// reader behind a mutex), as `JournalStorage` is.
///
/// Every wait is bounded: libpq's `connect_timeout` covers connecting and logging in, and an exchange
/// not answered within the URL's `query_timeout` closes the connection, which fails it. A connection
/// that failed is closed and forgotten; the next `withConnection` connects again, so that writing
/// resumes by itself once the database is back.
final class PostgresSession {
    let url: PostgresURL
    /// Run after each connect, so that a reconnected session is set up as the first one was.
    private let setUp: [String]
    private var connection: PostgresConnection?
    private var connections = 0
    /// The names of the statements prepared on the connection numbered `preparedOn`, by their SQL. A
    /// statement is run on the connection that prepared it, whichever is open now: one of a closed
    /// connection is unknown to the next, so they are forgotten with the connection they were prepared on.
    fileprivate var prepared: [String: String] = [:]
    fileprivate var preparedOn: Int?
    /// False once the server said a statement prepared here does not exist: a pooler in transaction
    /// mode (PgBouncer's) hands each transaction to any server connection, and the statements prepared
    /// on one are unknown to the others. From then on, statements are sent with their SQL every time.
    fileprivate(set) var preparesStatements = true
    /// When set, every exchange and every connect must end within this many milliseconds, in place of
    /// the URL's `query_timeout` and `connect_timeout` (a lease renewal's bound, well under its lease).
    var timeoutMillis: Int?

    init(url: PostgresURL, setUp: [String] = []) throws(JournalError) {
        self.url = url
        self.setUp = setUp
    }

    /// Whether a connection is open now (`byteCount` asks, to answer from its cache rather than connect).
    var isConnected: Bool {
        connection?.isOpen ?? false
    }

    /// Runs `body` on one connection, connecting first when there is none: all of `body`'s statements go
    /// to that connection, so a transaction is never split over two. A failure that is not the server's
    /// answer to a statement closes the connection, and the next call connects again.
    func withConnection<T>(failing code: JournalError.Code, _ body: (Link) throws(JournalError) -> T) throws(JournalError) -> T {
        let link = Link(connection: try connected(failing: code), number: connections, session: self, code: code)
        defer {
            if link.isBroken || !link.connection.isOpen { drop() }
        }
        return try body(link)
    }

    private func connected(failing code: JournalError.Code) throws(JournalError) -> PostgresConnection {
        if let connection {
            connection.checkIdle()
            if connection.isOpen { return connection }
        }
        drop()
        let opened: PostgresConnection
        do {
            opened = try PostgresConnection(url, deadline: timeoutMillis.map { .now() + .milliseconds($0) })
        } catch {
            throw JournalError(code, "cannot connect to PostgreSQL at \(url.location): \(error.description)")
        }
        connections += 1
        let link = Link(connection: opened, number: connections, session: self, code: code)
        for statement in setUp {
            do throws(JournalError) {
                try link.query(PostgresQuery(unsafeSQL: statement))
            } catch {
                opened.close()
                throw error
            }
        }
        connection = opened
        return opened
    }

    private func drop() {
        connection?.close()
        connection = nil
    }

    /// The session's connection while `withConnection`'s body runs.
    final class Link {
        fileprivate let connection: PostgresConnection
        /// Which of the session's connections this is, so that statements are forgotten with it.
        private let number: Int
        private unowned let session: PostgresSession
        private let code: JournalError.Code
        /// Set by a failure that leaves the connection in doubt: it is closed after the body.
        fileprivate(set) var isBroken = false

        fileprivate init(connection: PostgresConnection, number: Int, session: PostgresSession, code: JournalError.Code) {
            self.connection = connection
            self.number = number
            self.session = session
            self.code = code
        }

        /// Where the database is, for messages.
        var location: String { session.url.location }

        /// A row's columns as `types`; a column of another type means the table is not what layoutd made.
        func decode<each Column: PostgresDecodable>(_ row: PostgresRow, as types: (repeat each Column).Type) throws(JournalError) -> (repeat each Column) {
            var index = 0
            func next<Value: PostgresDecodable>(_ type: Value.Type) throws(JournalError) -> Value {
                defer { index += 1 }
                guard index < row.cells.count else {
                    throw JournalError(.incompatible, "PostgreSQL at \(location): a row has \(row.cells.count) columns, fewer than layoutd reads; were the journal's tables changed by hand?")
                }
                guard let value = Value.decode(row.cells[index]) else {
                    let cell = row.cells[index]
                    let found = cell.bytes == nil ? "NULL" : "of type \(cell.type.oid)"
                    throw JournalError(.incompatible, "PostgreSQL at \(location): column \(index + 1) is \(found), not a \(Value.self) as layoutd wrote it; were the journal's tables changed by hand?")
                }
                return value
            }
            return (repeat try next((each Column).self))
        }

        /// Runs one statement and returns its rows.
        @discardableResult
        func query(_ query: PostgresQuery) throws(JournalError) -> PostgresQueryResult {
            try pipeline([query])[0]
        }

        /// Sends `queries` at once and waits for them all (one round trip, not one per statement): a
        /// group commit's statements. Throws the first failure; the rest then fail or, for a `COMMIT`,
        /// answer `ROLLBACK`, which the caller checks.
        func pipeline(_ queries: [PostgresQuery]) throws(JournalError) -> [PostgresQueryResult] {
            try answers(connection.exchange(queries.map { .query($0) }, until: timeLimit()))
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
            if session.preparedOn != number {
                session.prepared = [:]
                session.preparedOn = number
            }
            var missing: [String] = []
            for statement in statements where session.prepared[statement.sql] == nil && !missing.contains(statement.sql) {
                missing.append(statement.sql)
            }
            if !missing.isEmpty {
                let names = missing.indices.map { "layoutd_\(session.prepared.count + $0 + 1)" }
                let preparing = zip(missing, names).map { sql, name in
                    PostgresCommand.prepare(name: name, sql: sql, types: statements.first { $0.sql == sql }?.binds.map(\.type) ?? [])
                }
                _ = try answers(connection.exchange(preparing, until: limit))
                for (sql, name) in zip(missing, names) { session.prepared[sql] = name }
            }
            var commands: [PostgresCommand] = []
            for statement in statements {
                // Unreachable: every statement was prepared above, or this threw.
                guard let name = session.prepared[statement.sql] else {
                    throw JournalError(code, "PostgreSQL at \(location): a statement was not prepared; none was sent")
                }
                commands.append(.execute(name: name, binds: statement.binds))
            }
            let results = connection.exchange(commands, until: limit)
            guard let lost = results.firstIndex(where: { if case .failure = $0 { true } else { false } }) else { return try answers(results).map(\.rows) }
            // SQLSTATE 26000: the statement is unknown to the server connection that got it, so it did
            // not run. Those before it ran (they may have committed): those from it on go again, with
            // their SQL.
            guard case .failure(let failure) = results[lost], failure.sqlState == "26000" else { return try answers(results).map(\.rows) }
            session.preparesStatements = false
            session.prepared = [:]
            return try answers(Array(results[..<lost])).map(\.rows) + rows(of: statements[lost...], until: limit)
        }

        private func rows(of statements: ArraySlice<PreparedStatement>, until limit: DispatchTime) throws(JournalError) -> [[PostgresRow]] {
            try answers(connection.exchange(statements.map { .query($0.query) }, until: limit)).map(\.rows)
        }

        /// When a wait that starts now must end: the URL's `query_timeout`.
        private func timeLimit() -> DispatchTime {
            if let millis = session.timeoutMillis { return .now() + .milliseconds(millis) }
            return .now() + .seconds(session.url.queryTimeoutSeconds)
        }

        /// The answers, or the first failure thrown.
        private func answers(_ results: [Result<PostgresQueryResult, PostgresFailure>]) throws(JournalError) -> [PostgresQueryResult] {
            var answers: [PostgresQueryResult] = []
            answers.reserveCapacity(results.count)
            for result in results {
                switch result {
                case .success(let answer): answers.append(answer)
                case .failure(let error): throw failure(error)
                }
            }
            return answers
        }

        /// `failure` for the operator; marks the connection broken unless the server answered it.
        private func failure(_ failure: PostgresFailure) -> JournalError {
            if !failure.isServerAnswer { isBroken = true }
            if case .timeout = failure.kind {
                if let millis = session.timeoutMillis {
                    return JournalError(code, "PostgreSQL at \(location) did not answer within \(millis) ms; the connection was closed")
                }
                return JournalError(code, "PostgreSQL at \(location) did not answer within \(session.url.queryTimeoutSeconds) s (query_timeout); the connection was closed")
            }
            return JournalError(code, "PostgreSQL at \(location): \(failure.description)")
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
            guard answer.command == "COMMIT" else {
                throw JournalError(code, "PostgreSQL at \(location) rolled the transaction back (it answered \(answer.command) to COMMIT)")
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
