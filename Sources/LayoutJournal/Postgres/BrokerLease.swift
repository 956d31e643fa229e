import Foundation
/// The active broker's lease, a row in the PostgreSQL database that holds the brokers' journal: one
/// broker holds it at a time, renewing it before it lapses; another (a standby) takes it once it has
/// lapsed. Each taking gives a new epoch, greater than every one before it and than the time in ms, so
/// it orders the copies a worker holds as the broker's start time did (the fencing token): the journal
/// writes of a broker whose lease was taken are refused (`Journal.open(fencedBy:)`).
///
/// A row rather than an advisory lock: a lock lives with its connection, and a broker paused past its
/// lease (or cut off from the database) would hold it until TCP noticed; a row with an expiry is taken
/// over on time, and its epoch is the fencing token itself.
public final class BrokerLease: @unchecked Sendable {
    // @unchecked Sendable: its connection is used by one thread at a time (a broker's start, its standby
    // loop, then its lease keeper, under the keeper's lock); it is handed between them, never shared.
    private let session: PostgresSession
    /// Who we are, as the row names the holder (the standby's answer tells clients).
    public let holder: String
    public let ttlMillis: Int
    /// How long one taking or renewal of the lease (connecting included) may take before it fails: a
    /// quarter of the lease, so that a renewal that hangs on a dead link is given up and tried again
    /// while the lease still holds.
    public var renewalTimeoutMillis: Int { max(10, ttlMillis / 4) }

    public init(url: String, holder: String, ttlMillis: Int) throws(JournalError) {
        session = try PostgresSession(url: try PostgresURL(url))
        self.holder = holder
        self.ttlMillis = max(100, ttlMillis)
        try session.withConnection(failing: .unreadable) { link throws(JournalError) in
            try link.transaction { () throws(JournalError) in
                try link.query("SELECT pg_advisory_xact_lock(\(PostgresJournalSchema.creationLock))")
                try link.query("""
                    CREATE TABLE IF NOT EXISTS layoutd_lease(
                        name TEXT PRIMARY KEY, holder TEXT NOT NULL, epoch BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL)
                    """)
            }
        }
        // Only once the table exists: its creation may wait on another broker's, and on a slow start.
        session.timeoutMillis = renewalTimeoutMillis
    }

    /// Takes the lease when nobody holds it or it has lapsed: the new epoch; nil while another holds it.
    public func acquire() throws(JournalError) -> UInt64? {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let ttl = "\(ttlMillis) milliseconds"
        return try session.withConnection(failing: .writeFailed) { link throws(JournalError) -> UInt64? in
            let rows = try link.query("""
                INSERT INTO layoutd_lease VALUES('broker', \(holder), GREATEST(1, \(now)), now() + \(ttl)::interval)
                ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder,
                    epoch = GREATEST(layoutd_lease.epoch + 1, \(now)), expires_at = EXCLUDED.expires_at
                WHERE layoutd_lease.expires_at < now()
                RETURNING epoch
                """)
            for row in rows {
                let (epoch) = try link.decode(row, as: Int64.self)
                return UInt64(epoch)
            }
            return nil
        }
    }

    /// Renews the lease taken at `epoch`; false when it is no longer ours (another broker took it).
    public func renew(epoch: UInt64) throws(JournalError) -> Bool {
        let ttl = "\(ttlMillis) milliseconds"
        return try session.withConnection(failing: .writeFailed) { link throws(JournalError) -> Bool in
            let rows = try link.query("""
                UPDATE layoutd_lease SET expires_at = now() + \(ttl)::interval
                WHERE name = 'broker' AND holder = \(holder) AND epoch = \(Int64(epoch)) RETURNING epoch
                """)
            return rows.count > 0
        }
    }

    /// Lets the lease go at once (a broker stopping), so a standby takes over without waiting it out.
    public func release(epoch: UInt64) {
        _ = try? session.withConnection(failing: .writeFailed) { link throws(JournalError) in
            try link.query("UPDATE layoutd_lease SET expires_at = now() - interval '1 second' WHERE name = 'broker' AND epoch = \(Int64(epoch))")
        }
    }

    /// Who holds the lease now (nil when nobody does), for a standby's answer.
    public func currentHolder() -> String? {
        try? session.withConnection(failing: .unreadable) { link throws(JournalError) -> String? in
            for row in try link.query("SELECT holder FROM layoutd_lease WHERE name = 'broker' AND expires_at >= now()") {
                return try link.decode(row, as: String.self)
            }
            return nil
        }
    }
}
