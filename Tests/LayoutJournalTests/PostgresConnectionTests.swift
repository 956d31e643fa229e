import LayoutTestKit
import Testing
@testable import LayoutJournal

/// libpq under the journal, against a real server: the binary values it sends and reads, and TLS as
/// `sslmode` and `sslrootcert` ask for it.
@Suite(.timeLimit(.minutes(3)))
struct PostgresConnectionTests {
    private func session(_ url: String) throws -> PostgresSession {
        try PostgresSession(url: PostgresURL(url))
    }

    @Test func valuesGoAndComeBackAsTheServerReadsThem() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let everyByte = PostgresBytes((0...255).map { UInt8($0) })
        let (text, empty, texts, numbers) = ("héllo ✓ 'quoted' $1", "", ["a", "", "ü,|"], [Int64.min, 0, Int64.max])
        let bodies = [PostgresBytes([]), PostgresBytes([0, 1, 2]), everyByte]
        let values = try session(server.url).withConnection(failing: .unreadable) { link throws(JournalError) in
            let rows = try link.query("""
                SELECT \(text)::text, CASE WHEN \(empty)::text IS NULL THEN 'null' ELSE 'value' END, \(Int64.min)::bigint,
                    \(Int64.max)::bigint, \(everyByte)::bytea, octet_length(\(PostgresBytes([]))::bytea),
                    array_to_string(\(texts)::text[], '|'), array_to_string(\(numbers)::bigint[], ','),
                    (SELECT string_agg(encode(b, 'hex'), ',' ORDER BY o) FROM unnest(\(bodies)::bytea[]) WITH ORDINALITY AS u(b, o)),
                    41 + 1, 'kept'::varchar
                """)
            guard let row = rows.first else { throw JournalError(.unreadable, "no row") }
            return try link.decode(row, as: (String, String, Int64, Int64, PostgresBytes, Int64, String, String, String, Int64, String).self)
        }
        #expect(values.0 == text)
        #expect(values.1 == "value", "an empty string is a value, not NULL")
        #expect(values.2 == Int64.min && values.3 == Int64.max)
        #expect(values.4 == everyByte)
        #expect(values.5 == 0)
        #expect(values.6 == "a||ü,|")
        #expect(values.7 == "-9223372036854775808,0,9223372036854775807")
        let hex = everyByte.bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(values.8 == ",000102,\(hex)")
        #expect(values.9 == 42 && values.10 == "kept")
    }

    @Test func aNullParameterAndANullColumnAreNull() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let statement = PreparedStatement("SELECT CASE WHEN $1::text IS NULL THEN 'null' ELSE 'value' END, $2::bigint, NULL::bytea", [nil, Int64(7)])
        let (isNull, number, bytes) = try session(server.url).withConnection(failing: .unreadable) { link throws(JournalError) in
            guard let row = try link.run([statement]).first?.first else { throw JournalError(.unreadable, "no row") }
            return try link.decode(row, as: (String, Int64, PostgresBytes?).self)
        }
        #expect(isNull == "null" && number == 7 && bytes == nil)
    }

    @Test func aColumnOfAnotherTypeIsRefusedAsIncompatible() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        #expect {
            try self.session(server.url).withConnection(failing: .unreadable) { link throws(JournalError) in
                guard let row = try link.query("SELECT 'text'::text").first else { throw JournalError(.unreadable, "no row") }
                _ = try link.decode(row, as: (Int64).self)
            }
        } throws: {
            ($0 as? JournalError)?.code == .incompatible && "\($0)".contains("column 1")
        }
    }

    /// Whether the session's connection is encrypted, as the server sees it.
    private func isEncrypted(_ url: String) throws -> String {
        try session(url).withConnection(failing: .unreadable) { link throws(JournalError) -> String in
            let row = try link.query("SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()").first
            guard let row else { return "no row" }
            return try link.decode(row, as: (String).self)
        }
    }

    @Test func sslModesEncryptAndVerifyAsLibpqDoes() throws {
        let server = try PostgresServer(tls: true)
        defer { withExtendedLifetime(server) {} }
        let port = try #require(server.url.split(separator: ":").last?.split(separator: "/").first)
        let root = server.certificatePath
        #expect(try isEncrypted(server.url + "?sslmode=disable") == "false")
        #expect(try isEncrypted(server.url) == "true", "prefer takes TLS when the server offers it")
        #expect(try isEncrypted(server.url + "?sslmode=require") == "true")
        // The certificate names localhost: verify-ca checks the root alone, verify-full the name too.
        #expect(try isEncrypted(server.url + "?sslmode=verify-ca&sslrootcert=\(root)") == "true")
        #expect(try isEncrypted("postgres://layoutd@localhost:\(port)/layoutd?sslmode=verify-full&sslrootcert=\(root)") == "true")
        #expect {
            _ = try self.isEncrypted(server.url + "?sslmode=verify-full&sslrootcert=\(root)")
        } throws: {
            ($0 as? JournalError)?.code == .unreadable && "\($0)".contains("cannot connect") && "\($0)".contains("127.0.0.1")
        }
        // Without sslrootcert the system's roots are trusted, and a self-signed certificate is not among them.
        #expect {
            _ = try self.isEncrypted(server.url + "?sslmode=verify-ca")
        } throws: {
            ($0 as? JournalError)?.code == .unreadable && "\($0)".contains("cannot connect")
        }
    }

    @Test func requireOnAServerWithoutTLSIsRefused() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        #expect(try isEncrypted(server.url) == "false", "prefer goes on in the clear")
        #expect {
            _ = try self.isEncrypted(server.url + "?sslmode=require")
        } throws: {
            ($0 as? JournalError)?.code == .unreadable && "\($0)".contains("SSL")
        }
    }
}
