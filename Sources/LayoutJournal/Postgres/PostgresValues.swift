/// The values the journal sends to PostgreSQL and reads back, in the protocol's binary format.
///
/// Written by hand rather than taken from a package: the journal needs five types (text, bigint,
/// bytea and their one-dimensional arrays) over libpq, whose parameters are byte strings; a client
/// package would bring its own I/O stack (postgres-nio brought SwiftNIO's TLS and two copies of
/// BoringSSL) for what is a few lines of framing.

/// A PostgreSQL type, by its OID (`pg_type.oid`, fixed for built-in types).
struct PostgresType: Hashable, Sendable {
    let oid: UInt32

    static let bool = PostgresType(oid: 16)
    static let bytea = PostgresType(oid: 17)
    static let name = PostgresType(oid: 19)
    static let int8 = PostgresType(oid: 20)
    static let int2 = PostgresType(oid: 21)
    static let int4 = PostgresType(oid: 23)
    static let text = PostgresType(oid: 25)
    static let bpchar = PostgresType(oid: 1042)
    static let varchar = PostgresType(oid: 1043)
    static let byteaArray = PostgresType(oid: 1001)
    static let textArray = PostgresType(oid: 1009)
    static let int8Array = PostgresType(oid: 1016)
}

/// A value sent as a statement's parameter, in binary format.
protocol PostgresEncodable {
    static var postgresType: PostgresType { get }
    func encode(into bytes: inout [UInt8])
}

/// A value that can be an element of a one-dimensional array parameter.
protocol PostgresArrayElement: PostgresEncodable {
    static var arrayType: PostgresType { get }
}

/// A value read from a column in binary format.
protocol PostgresDecodable {
    /// Nil when the column is not of a type this reads (or is NULL, for a non-optional).
    static func decode(_ cell: PostgresCell) -> Self?
}

/// `bytea`: a body's bytes (a distinct type, so that `[UInt8]` is never taken for an array of numbers).
struct PostgresBytes: Hashable, Sendable {
    var bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

extension String: PostgresArrayElement, PostgresDecodable {
    static var postgresType: PostgresType { .text }
    static var arrayType: PostgresType { .textArray }
    func encode(into bytes: inout [UInt8]) { bytes.append(contentsOf: utf8) }

    static func decode(_ cell: PostgresCell) -> String? {
        guard let bytes = cell.bytes, [.text, .varchar, .name, .bpchar].contains(cell.type) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Int64: PostgresArrayElement, PostgresDecodable {
    static var postgresType: PostgresType { .int8 }
    static var arrayType: PostgresType { .int8Array }
    func encode(into bytes: inout [UInt8]) { bytes.appendBigEndian(UInt64(bitPattern: self)) }

    static func decode(_ cell: PostgresCell) -> Int64? {
        guard let bytes = cell.bytes else { return nil }
        switch (cell.type, bytes.count) {
        case (.int8, 8): return Int64(bitPattern: bytes.bigEndianInteger())
        case (.int4, 4): return Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: bytes.bigEndianInteger())))
        case (.int2, 2): return Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: bytes.bigEndianInteger())))
        default: return nil
        }
    }
}

extension PostgresBytes: PostgresArrayElement, PostgresDecodable {
    static var postgresType: PostgresType { .bytea }
    static var arrayType: PostgresType { .byteaArray }
    func encode(into bytes: inout [UInt8]) { bytes.append(contentsOf: self.bytes) }

    static func decode(_ cell: PostgresCell) -> PostgresBytes? {
        guard let bytes = cell.bytes, cell.type == .bytea else { return nil }
        return PostgresBytes(bytes)
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    static func decode(_ cell: PostgresCell) -> Wrapped?? {
        guard cell.bytes != nil else { return .some(nil) }
        return Wrapped.decode(cell).map { .some($0) }
    }
}

/// A one-dimensional array, in the binary form `array_send` writes: dimensions, flags, the element
/// type, the length and lower bound, then each element with its length.
extension Array: PostgresEncodable where Element: PostgresArrayElement {
    static var postgresType: PostgresType { Element.arrayType }

    func encode(into bytes: inout [UInt8]) {
        bytes.appendBigEndian(UInt32(1))  // dimensions
        bytes.appendBigEndian(UInt32(0))  // no NULLs
        bytes.appendBigEndian(Element.postgresType.oid)
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: count))
        bytes.appendBigEndian(UInt32(1))  // lower bound
        var element: [UInt8] = []
        for value in self {
            element.removeAll(keepingCapacity: true)
            value.encode(into: &element)
            bytes.appendBigEndian(UInt32(truncatingIfNeeded: element.count))
            bytes.append(contentsOf: element)
        }
    }
}

/// A parameter as libpq sends it: its type and bytes, or NULL.
struct PostgresBind: Sendable {
    let type: PostgresType
    let bytes: [UInt8]?

    init(_ value: some PostgresEncodable) {
        var bytes: [UInt8] = []
        value.encode(into: &bytes)
        (type, self.bytes) = (Swift.type(of: value).postgresType, bytes)
    }

    init(nullOf type: PostgresType) {
        (self.type, bytes) = (type, nil)
    }
}

/// A statement and its parameters; written as a string whose interpolations become parameters
/// (`"… WHERE name = \(name)"` sends `$1` and `name`), so that no value is ever spliced into SQL.
/// `\(unescaped: text)` splices `text` itself, for SQL the code writes.
struct PostgresQuery: ExpressibleByStringInterpolation, Sendable {
    var sql: String
    var binds: [PostgresBind]

    init(unsafeSQL sql: String, binds: [PostgresBind] = []) {
        (self.sql, self.binds) = (sql, binds)
    }

    init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var sql = ""
        fileprivate var binds: [PostgresBind] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + 4 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) { sql += literal }

        mutating func appendInterpolation(_ value: some PostgresEncodable) {
            binds.append(PostgresBind(value))
            sql += "$\(binds.count)"
        }

        mutating func appendInterpolation(unescaped text: String) { sql += text }
    }
}

/// A column of a row: its type and bytes (nil for NULL).
struct PostgresCell: Sendable {
    let type: PostgresType
    let bytes: [UInt8]?
}

/// A row of a statement's answer.
struct PostgresRow: Sendable {
    let cells: [PostgresCell]
}

/// A statement's answer: its rows, and the command tag the server ended it with (`COMMIT`,
/// `ROLLBACK`, `UPDATE 1`).
struct PostgresQueryResult: Sequence, Sendable {
    let rows: [PostgresRow]
    let commandTag: String

    /// The tag's verb: `ROLLBACK` where a `COMMIT` found its transaction aborted.
    var command: String { String(commandTag.prefix { $0 != " " }) }

    /// The rows the command touched (`UPDATE 1`: 1), as the tag's last number says.
    var affectedRows: Int? { commandTag.split(separator: " ").last.flatMap { Int($0) } }

    var count: Int { rows.count }
    var first: PostgresRow? { rows.first }
    func makeIterator() -> IndexingIterator<[PostgresRow]> { rows.makeIterator() }
}

/// A statement for `PostgresSession.Link.run`: SQL with `$n` parameters, and their values.
struct PreparedStatement: Sendable {
    let sql: String
    let binds: [PostgresBind]

    /// `values` as the statement's parameters `$1`, `$2`, … (nil for a NULL of `nullType`).
    init(_ sql: String, _ values: [(any PostgresEncodable)?], nullType: PostgresType = .text) {
        self.sql = sql
        binds = values.map { value in value.map { PostgresBind($0) } ?? PostgresBind(nullOf: nullType) }
    }

    /// The same statement with its SQL, not prepared.
    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    fileprivate func bigEndianInteger() -> UInt64 {
        reduce(0) { $0 << 8 | UInt64($1) }
    }
}
