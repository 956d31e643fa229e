import Foundation
import LayoutServer
@testable import LayoutCluster

/// The PostgreSQL database two brokers share (issue 32): the lease row (`BrokerLease`) and the journal
/// of recipes, whose commits are fenced by the lease epoch as `PostgresJournalStorage` fences them
/// (a commit under an epoch that is no longer the row's fails before anything is written). Its clock is
/// the simulation's shared one: `expires_at` and `now()` are the database server's.
final class SimulatedDatabase {
    /// The lease row: who holds it, its epoch (the fencing token) and when it lapses.
    private(set) var holder: Int?
    private(set) var epoch: UInt64 = 0
    private(set) var expiresAt: Nanos = 0
    let time: SimulatedTime
    /// `cluster.leaseMillis`, in nanoseconds.
    let ttl: Nanos
    /// Every kept key's recipe as committed, and keys journaled as dropped.
    private(set) var recipes: [LayoutKey: (base: Int, bodies: [[UInt8]], epoch: UInt64)] = [:]
    private(set) var drops: [LayoutKey: (version: Int, epoch: UInt64)] = [:]
    /// Commits refused because their epoch was fenced off.
    private(set) var fencedCommits = 0

    init(time: SimulatedTime, ttl: Nanos) {
        self.time = time
        self.ttl = ttl
    }

    /// `BrokerLease.acquire`: the new epoch (greater than the last and than the time in ms) when the row
    /// is free or lapsed; nil while another holds it.
    func acquire(by broker: Int) -> UInt64? {
        let now = time.now
        guard holder == nil || expiresAt < now else { return nil }
        holder = broker
        epoch = max(epoch + 1, now / 1_000_000)
        expiresAt = now + ttl
        return epoch
    }

    /// `BrokerLease.renew`: whether the lease taken at `leaseEpoch` was still this broker's (then it
    /// lasts `ttl` from the database's now).
    func renew(by broker: Int, epoch leaseEpoch: UInt64) -> Bool {
        guard holder == broker, epoch == leaseEpoch else { return false }
        expiresAt = time.now + ttl
        return true
    }

    /// `BrokerLease.release`: a broker stopping lets its lease lapse at once.
    func release(epoch leaseEpoch: UInt64) {
        guard epoch == leaseEpoch else { return }
        expiresAt = time.now &- 1_000_000_000
    }

    /// A journal commit made under the broker lease `fencingEpoch`: false (nothing written) when the lease
    /// has been taken since.
    func commit(_ change: RecipeBook.Change, epoch keyEpoch: UInt64, fencedBy fencingEpoch: UInt64) -> Bool {
        guard fencingEpoch == epoch else {
            fencedCommits += 1
            return false
        }
        switch change {
        case .started(let key, let version, let body):
            recipes[key] = (version, [body.array], keyEpoch)
            drops[key] = nil
        case .appended(let key, let version, let body):
            // A broken chain is a refused commit in the real journal; the recipe is kept as it was.
            guard let recipe = recipes[key], recipe.base + recipe.bodies.count == version else { return false }
            recipes[key]?.bodies.append(body.array)
        case .removed(let key, let version):
            drops[key] = (version, max(recipes[key]?.epoch ?? 0, drops[key]?.epoch ?? 0))
            recipes[key] = nil
        case .unprotected(let key, let version):
            recipes[key] = (version, [RecipeBook.unprotectedMarker], keyEpoch)
            drops[key] = nil
        }
        return true
    }

    /// `JournalWrite.epoch`, fenced as every commit.
    func commitEpoch(of key: LayoutKey, epoch keyEpoch: UInt64, fencedBy fencingEpoch: UInt64) -> Bool {
        guard fencingEpoch == epoch else {
            fencedCommits += 1
            return false
        }
        if let entry = recipes[key] { recipes[key]?.epoch = max(entry.epoch, keyEpoch) }
        if let entry = drops[key] { drops[key]?.epoch = max(entry.epoch, keyEpoch) }
        return true
    }

    /// What a broker taking the lease reads (`JournaledRecipes.open`), in key order.
    var journaled: (recipes: [(key: LayoutKey, base: Int, bodies: [[UInt8]], epoch: UInt64)], dropped: [(key: LayoutKey, version: Int, epoch: UInt64)]) {
        (
            recipes.sorted { $0.key < $1.key }.map { (key: $0.key, base: $0.value.base, bodies: $0.value.bodies, epoch: $0.value.epoch) },
            drops.sorted { $0.key < $1.key }.map { (key: $0.key, version: $0.value.version, epoch: $0.value.epoch) }
        )
    }

    /// Whether the journal keeps `key` with a recipe (not dropped, not unprotected).
    func hasRecipe(_ key: LayoutKey) -> Bool {
        guard let recipe = recipes[key] else { return false }
        return recipe.bodies.first != RecipeBook.unprotectedMarker
    }
}
