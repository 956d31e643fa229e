import CSQLite

/// One connection to an SQLite file, used by one thread at a time.
///
/// Written over libsqlite3 rather than taken from GRDB: the journal runs a handful of fixed statements
/// on threads of its own (one writer, one guarded reader), which is all of SQLite it needs; GRDB's
/// pools, records and observation would bring a second threading model to keep off the I/O thread, and
/// its build to every CI run.
final class SQLiteConnection {
    private let handle: OpaquePointer
    let path: String

    init(path: String) throws(JournalError) {
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw JournalError(.unreadable, "cannot open \(path): \(message)")
        }
        handle = opened
        // A writer holding the lock for a moment (a checkpoint) makes the other connection wait, not fail.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String, failing code: JournalError.Code = .writeFailed) throws(JournalError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(code, doing: sql) }
    }

    func prepare(_ sql: String, failing code: JournalError.Code = .writeFailed) throws(JournalError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error(code, doing: sql)
        }
        return SQLiteStatement(statement, connection: self)
    }

    /// The single text a query such as `PRAGMA journal_mode=WAL` answers.
    func text(_ sql: String) throws(JournalError) -> String {
        let statement = try prepare(sql, failing: .unreadable)
        guard try statement.step() else { return "" }
        return statement.text(at: 0)
    }

    /// The single integer a query such as `PRAGMA page_count` answers.
    func integer(_ sql: String) throws(JournalError) -> Int64 {
        let statement = try prepare(sql, failing: .unreadable)
        guard try statement.step() else { return 0 }
        return statement.integer(at: 0)
    }

    func error(_ code: JournalError.Code, doing what: String) -> JournalError {
        let message = String(cString: sqlite3_errmsg(handle))
        let extended = sqlite3_extended_errcode(handle)
        return JournalError(code, "\(path): \(message) (SQLite \(extended)) in \(what.prefix(60))")
    }
}

/// A prepared statement of one `SQLiteConnection`.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    fileprivate init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values` from the first parameter on, after a reset; then `step` reads the rows.
    func bind(_ values: SQLiteValue...) {
        bind(values)
    }

    private func bind(_ values: [SQLiteValue]) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() { bindOne(value, at: Int32(offset + 1)) }
    }

    /// Steps once: true when a row is ready, false when done.
    func step() throws(JournalError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(.writeFailed, doing: String(cString: sqlite3_sql(handle)))
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ values: SQLiteValue...) throws(JournalError) {
        bind(values)
        _ = try step()
    }

    private func bindOne(_ value: SQLiteValue, at index: Int32) {
        switch value {
        case .integer(let number): sqlite3_bind_int64(handle, index, number)
        case .text(let text): sqlite3_bind_text(handle, index, text, -1, sqliteTransient)
        case .blob(let bytes):
            bytes.withUnsafeBytes { raw in
                // SQLITE_TRANSIENT copies: the array may go before the statement runs.
                _ = sqlite3_bind_blob64(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(raw.count), sqliteTransient)
            }
        }
    }

    func integer(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func text(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: text)
    }

    func blob(at column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }
}

/// A value bound to a statement's parameter.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// SQLite's SQLITE_TRANSIENT, which the C macro casts from -1 and Swift cannot import.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
