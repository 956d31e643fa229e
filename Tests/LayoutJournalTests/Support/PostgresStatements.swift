@testable import LayoutJournal

/// Runs statements on the server at `url` through a connection of the test's own, as an operator's psql
/// would.
func execute(_ url: String, _ statements: String...) throws {
    let session = try PostgresSession(url: PostgresURL(url))
    try session.withConnection(failing: .writeFailed) { link throws(JournalError) in
        for statement in statements { try link.query("\(unescaped: statement)") }
    }
}
