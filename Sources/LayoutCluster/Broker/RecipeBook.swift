import LayoutServer

/// The bodies that rebuild one kept layout: a `prepare` (the client's, or a snapshot the key's worker
/// wrote), then every acknowledged change since, in order. Replayed on a worker from version `base - 1`,
/// they reproduce the layout bit for bit at the version the last one gave (the engine is deterministic).
/// Body `i` gave version `base + i`: a change joins only at the version after the last one.
final class Recipe {
    let key: LayoutKey
    /// The version the first body, the `prepare`, gave.
    private(set) var base: Int
    private(set) var bodies: [HeldBody]
    private(set) var bytes: Int
    /// Compaction is due once the changes' bytes exceed this, or their number exceeds `compactAtChanges`.
    fileprivate var compactAtBytes = 0
    fileprivate var compactAtChanges = 0
    /// Links of the book's least-recently-used list (newest → oldest).
    fileprivate var newer: Recipe?
    fileprivate weak var older: Recipe?

    fileprivate init(key: LayoutKey, base: Int, prepare: HeldBody) {
        self.key = key
        self.base = base
        bodies = [prepare]
        bytes = prepare.count
    }

    /// The version the last body gave.
    var lastVersion: Int { base + bodies.count - 1 }
    /// The changes after the `prepare`, and their bytes.
    var changes: Int { bodies.count - 1 }
    var changeBytes: Int { bytes - bodies[0].count }

    fileprivate func append(_ body: HeldBody) {
        bodies.append(body)
        bytes += body.count
    }

    /// The bodies up to and including the one that gave `version` become `snapshot`.
    fileprivate func replace(through version: Int, with snapshot: HeldBody) {
        let covered = version - base + 1
        bytes += snapshot.count - bytes(ofFirst: covered)
        bodies.replaceSubrange(0..<covered, with: [snapshot])
        base = version
    }

    /// The bytes of the first `count` bodies.
    fileprivate func bytes(ofFirst count: Int) -> Int {
        bodies.prefix(count).reduce(0) { $0 + $1.count }
    }
}

/// When the broker asks a key's worker for a snapshot of its layout, to compact the key's recipe
/// (`cluster.compactAfterBytes`, `cluster.compactAfterChanges`; 0 turns that trigger off).
struct CompactionPolicy {
    /// Compact once the changes add up to more than this or the `prepare`'s own bytes, whichever is more.
    var afterBytes = 64 * 1024
    /// Compact once there are more changes than this (each costs a step when the recipe is replayed).
    var afterChanges = 1024
}

/// Every key's recipe, bounded in bytes (`cluster.recipeBytes`): the least recently used go first.
///
/// Compaction: a `prepare` starts its key's recipe over. A recipe whose changes outgrow its `prepare`
/// (`CompactionPolicy`) is due for a snapshot: the broker asks the key's worker for a `prepare` body
/// that rebuilds the layout as it stands at some version, and `compact` puts it in place of the bodies
/// up to that version, when it is smaller than they are. A `drop`, an eviction or a loss removes the
/// recipe; a `bounds` that did not change the size is never recorded. A key whose recipe is dropped
/// stays kept on its worker, but cannot be rebuilt if that worker dies: it is then lost.
final class RecipeBook {
    /// What happened to a recipe, as the broker's journal records it.
    enum Change {
        /// The recipe starts over with `body`, which gave `version`.
        case started(LayoutKey, version: Int, body: HeldBody)
        /// `body` gave `version`, after the recipe's earlier bodies.
        case appended(LayoutKey, version: Int, body: HeldBody)
        /// The recipe is gone (a drop, a loss, an eviction from the book); it had reached `version`.
        case removed(LayoutKey, version: Int)
        /// The recipe is gone but the layout is still kept, at `version`, on its worker alone: the recipe
        /// could not reproduce that version (see `unprotect`).
        case unprotected(LayoutKey, version: Int)

        var key: LayoutKey {
            switch self {
            case .started(let key, _, _), .appended(let key, _, _), .removed(let key, _), .unprotected(let key, _): return key
            }
        }
    }

    /// The body a journal keeps for a key that is kept with no recipe (`Change.unprotected`): a restarted
    /// broker knows the key and its version, and publishes it `lost` if no worker still has it, instead
    /// of forgetting it. It starts with a NUL byte, which no request body does.
    static let unprotectedMarker: [UInt8] = [0] + Array("layoutd: kept without a recipe".utf8)

    let capacityBytes: Int
    let compaction: CompactionPolicy
    /// Told of every change to a recipe, in order (the broker's journal); nil: nobody is.
    var onChange: ((Change) -> Void)?
    private(set) var totalBytes = 0
    private var recipes: [LayoutKey: Recipe] = [:]
    /// Most recently used; follow `newer` from `oldest` to reach it.
    private var newest: Recipe?
    private var oldest: Recipe?

    init(capacityBytes: Int, compaction: CompactionPolicy = CompactionPolicy()) {
        self.capacityBytes = capacityBytes
        self.compaction = compaction
    }

    var count: Int { recipes.count }

    func recipe(for key: LayoutKey) -> Recipe? {
        recipes[key]
    }

    /// Starts `key`'s recipe over with the `prepare` body that made version `base`. Returns the keys
    /// whose recipes were dropped to make room (possibly `key` itself, when the body alone is over the bound).
    func start(_ key: LayoutKey, base: Int, prepare: HeldBody) -> [LayoutKey] {
        // Started over, not removed: the journal takes the new start alone.
        forget(key)
        let recipe = Recipe(key: key, base: base, prepare: prepare.retained())
        resetCompaction(of: recipe)
        recipes[key] = recipe
        link(recipe)
        totalBytes += recipe.bytes
        onChange?(.started(key, version: base, body: recipe.bodies[0]))
        return evictOverflow()
    }

    /// Appends an acknowledged change to `key`'s recipe (nothing when it has none). Returns the keys
    /// whose recipes were dropped to make room.
    func append(_ key: LayoutKey, change: HeldBody) -> [LayoutKey] {
        guard let recipe = recipes[key] else { return [] }
        let body = change.retained()
        recipe.append(body)
        totalBytes += body.count
        touch(key)
        onChange?(.appended(key, version: recipe.lastVersion, body: body))
        return evictOverflow()
    }

    // MARK: Compaction

    /// Whether `recipe` has outgrown its `prepare` (see `CompactionPolicy`).
    func isDueForCompaction(_ recipe: Recipe) -> Bool {
        (compaction.afterBytes > 0 && recipe.changeBytes > recipe.compactAtBytes)
            || (compaction.afterChanges > 0 && recipe.changes > recipe.compactAtChanges)
    }

    /// What `compact` did.
    enum Compaction: Equatable {
        /// The snapshot took the place of the bodies it covers; the recipe is this many bytes smaller.
        case compacted(savedBytes: Int)
        /// The recipe is no longer the one the snapshot was asked for (a `prepare` started it over, or
        /// it was removed), or does not hold the snapshot's version: nothing changed.
        case stale
        /// The snapshot is not smaller than the bodies it would replace: nothing changed.
        case notSmaller
    }

    /// Puts `snapshot`, a `prepare` body that rebuilds `recipe`'s layout as it stood at `version`, in
    /// place of the bodies up to that version; the changes after it stay.
    func compact(_ recipe: Recipe, at version: Int, snapshot: HeldBody) -> Compaction {
        guard recipes[recipe.key] === recipe, version >= recipe.base, version <= recipe.lastVersion else { return .stale }
        let covered = recipe.bytes(ofFirst: version - recipe.base + 1)
        guard snapshot.count < covered else { return .notSmaller }
        let before = recipe.bytes
        recipe.replace(through: version, with: snapshot.retained())
        totalBytes += recipe.bytes - before
        resetCompaction(of: recipe)
        if let onChange {
            // The journal starts the key over from the snapshot, then takes the changes after it again.
            onChange(.started(recipe.key, version: recipe.base, body: recipe.bodies[0]))
            for (offset, body) in recipe.bodies.enumerated().dropFirst() {
                onChange(.appended(recipe.key, version: recipe.base + offset, body: body))
            }
        }
        return .compacted(savedBytes: before - recipe.bytes)
    }

    /// A snapshot of `recipe` was not taken: the next one waits until the recipe has doubled, so that a
    /// layout that cannot be compacted (its snapshot is larger than its changes) is asked a few times
    /// in its life, not at every change.
    func postponeCompaction(of recipe: Recipe) {
        recipe.compactAtBytes = max(recipe.compactAtBytes, recipe.changeBytes) * 2
        recipe.compactAtChanges = max(recipe.compactAtChanges, recipe.changes) * 2
    }

    private func resetCompaction(of recipe: Recipe) {
        recipe.compactAtBytes = max(compaction.afterBytes, recipe.bodies[0].count)
        recipe.compactAtChanges = compaction.afterChanges
    }

    // MARK: Use

    /// Marks `key`'s recipe as just used.
    func touch(_ key: LayoutKey) {
        guard let recipe = recipes[key], newest !== recipe else { return }
        unlink(recipe)
        link(recipe)
    }

    /// Drops `key`'s recipe.
    func remove(_ key: LayoutKey) {
        guard let recipe = forget(key) else { return }
        onChange?(.removed(key, version: recipe.lastVersion))
    }

    /// Removes `key`'s recipe because the key is no longer kept (a drop, a loss, an eviction at its
    /// worker) at `version`: the journal records it at that version, recipe or not, so that a restarted
    /// broker continues the key's versions past it and ranks stale copies below it.
    func remove(_ key: LayoutKey, droppedAt version: Int) {
        forget(key)
        onChange?(.removed(key, version: version))
    }

    /// Removes `key`'s recipe, which cannot reproduce the layout's `version` (a copy newer than the recipe
    /// was taken, or a change came between that the recipe never saw). Unlike `remove`, the journal keeps
    /// the key as kept at `version`, without a recipe, until a snapshot gives it one.
    func unprotect(_ key: LayoutKey, version: Int) {
        forget(key)
        onChange?(.unprotected(key, version: version))
    }

    /// Records again that `key`, which has no recipe here, is kept at `version` without one: the journal's
    /// record of it missed a write (the removal of its recipe), and must not be rebuilt from.
    func recordKeptWithoutRecipe(_ key: LayoutKey, version: Int) {
        guard recipes[key] == nil else { return }
        onChange?(.unprotected(key, version: version))
    }

    @discardableResult
    private func forget(_ key: LayoutKey) -> Recipe? {
        guard let recipe = recipes.removeValue(forKey: key) else { return nil }
        unlink(recipe)
        totalBytes -= recipe.bytes
        return recipe
    }

    /// Keys from least to most recently used (tests).
    var keysByAge: [LayoutKey] {
        var keys: [LayoutKey] = []
        var cursor = oldest
        while let recipe = cursor {
            keys.append(recipe.key)
            cursor = recipe.newer
        }
        return keys
    }

    private func evictOverflow() -> [LayoutKey] {
        var evicted: [LayoutKey] = []
        while totalBytes > capacityBytes, let victim = oldest {
            evicted.append(victim.key)
            remove(victim.key)
        }
        return evicted
    }

    private func link(_ recipe: Recipe) {
        recipe.older = newest
        recipe.newer = nil
        newest?.newer = recipe
        newest = recipe
        if oldest == nil { oldest = recipe }
    }

    private func unlink(_ recipe: Recipe) {
        let older = recipe.older
        let newer = recipe.newer
        if let older { older.newer = newer } else { oldest = newer }
        if let newer { newer.older = older } else { newest = older }
        recipe.older = nil
        recipe.newer = nil
    }
}
