import Foundation
import LayoutJournal
import LayoutServer
import Logging

/// A broker's journal, opened before it serves, with the recipes it kept: a restarted broker protects
/// every key again, and its epoch goes on past every epoch the journal holds.
struct JournaledRecipes {
    let journal: Journal
    /// Every kept key's recipe as committed.
    let recipes: [(key: LayoutKey, base: Int, bodies: [[UInt8]], epoch: UInt64)]
    /// Keys journaled as dropped, with the version and epoch they reached.
    var dropped: [(key: LayoutKey, version: Int, epoch: UInt64)] = []
    /// This broker's epoch: its start in ms, or past the greatest epoch journaled if the clock went back.
    let epoch: UInt64
    /// Whether `epoch` is a broker lease's (PostgreSQL): then it only ever advances by one, since a
    /// deposed broker's must stay below the next lease's.
    var leased = false

    /// The broker's journal URL: the configured one, except that the default file is a file of the
    /// broker's own (`data/layoutd-broker.db`), so a broker and a single daemon started from one folder
    /// never meet each other's journal.
    static func url(for configuration: ServerConfiguration) -> JournalURL {
        configuration.journalURL == .defaultValue ? .sqlite(path: "data/layoutd-broker.db") : configuration.journalURL
    }

    /// Opens the journal and reads every recipe; nil with `journal.url: none`. A recipe that cannot be
    /// read (a corrupt record) is left out and logged: its key is not protected until it is prepared
    /// again, as a key whose recipe was evicted.
    /// - Parameter leaseEpoch: the epoch of the broker lease held (PostgreSQL): the journal's writes are
    ///   fenced by it, and it is the broker's epoch.
    static func open(configuration: ServerConfiguration, leaseEpoch: UInt64? = nil, logger: Logger) throws -> JournaledRecipes? {
        let url = url(for: configuration)
        let journal: Journal?
        do {
            journal = try Journal.open(
                url, role: .broker, durability: configuration.journalDurability, syncMillis: configuration.journalSyncMillis, fencingEpoch: leaseEpoch,
                onHealthChange: { writable, reason in
                    if writable {
                        logger.notice("the broker's journal writes again")
                    } else {
                        logger.error("the broker's journal cannot write; changes are not acknowledged until it can", metadata: ["reason": "\(reason ?? "unknown")"])
                    }
                }
            )
        } catch {
            throw ServerError("journal \(url): \(error.message)")
        }
        guard let journal else { return nil }
        var recipes: [(key: LayoutKey, base: Int, bodies: [[UInt8]], epoch: UInt64)] = []
        var greatestEpoch: UInt64 = 0
        var dropped: [(key: LayoutKey, version: Int, epoch: UInt64)] = []
        for state in journal.keysAtOpen {
            greatestEpoch = max(greatestEpoch, state.epoch)
            let key = LayoutKey(namespace: state.key.namespace, name: state.key.name)
            guard state.isKept else {
                dropped.append((key, state.version, state.epoch))
                continue
            }
            do {
                guard let recipe = try journal.recipe(for: state.key) else { continue }
                recipes.append((key, recipe.base, recipe.bodies, state.epoch))
            } catch {
                logger.error("a journaled recipe cannot be read; its layout is unprotected until it is prepared again", metadata: ["layout": "\(key)", "reason": "\(error.message)"])
            }
        }
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        if !recipes.isEmpty {
            logger.info("recipes read from the journal", metadata: ["layouts": "\(recipes.count)", "journal": "\(url)"])
        }
        // With a lease, its epoch as it is: each taking is greater than the last, and so than every epoch
        // a broker journaled under it; a broker epoch above it could outrank the next lease's.
        return JournaledRecipes(journal: journal, recipes: recipes, dropped: dropped, epoch: leaseEpoch ?? max(now, greatestEpoch + 1), leased: leaseEpoch != nil)
    }
}

extension RecipeBook.Change {
    /// The journal's record of this change, made under `epoch`.
    func write(epoch: UInt64) -> JournalWrite {
        switch self {
        case .started(let key, let version, let body):
            return .rebuild(JournalKey(namespace: key.namespace, name: key.name), version: version, epoch: epoch, items: 0, body: body.array)
        case .appended(let key, let version, let body):
            return .change(JournalKey(namespace: key.namespace, name: key.name), version: version, items: 0, body: body.array)
        case .removed(let key, let version):
            return .drop(JournalKey(namespace: key.namespace, name: key.name), version: version)
        case .unprotected(let key, let version):
            return .rebuild(JournalKey(namespace: key.namespace, name: key.name), version: version, epoch: epoch, items: 0, body: RecipeBook.unprotectedMarker)
        }
    }
}
