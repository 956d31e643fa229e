import LayoutServer

/// The bodies that rebuild one kept layout: the `prepare` that made it, then every acknowledged change
/// since, in order. Replayed on a worker from version `base - 1`, they reproduce the layout bit for bit
/// at the version the last one gave (the engine is deterministic).
final class Recipe {
    let key: LayoutKey
    /// The version the `prepare` gave.
    let base: Int
    private(set) var bodies: [HeldBody]
    private(set) var bytes: Int
    /// Links of the book's least-recently-used list (newest → oldest).
    fileprivate var newer: Recipe?
    fileprivate weak var older: Recipe?

    fileprivate init(key: LayoutKey, base: Int, prepare: HeldBody) {
        self.key = key
        self.base = base
        bodies = [prepare]
        bytes = prepare.count
    }

    fileprivate func append(_ body: HeldBody) {
        bodies.append(body)
        bytes += body.count
    }
}

/// Every key's recipe, bounded in bytes (`cluster.recipeBytes`): the least recently used go first.
///
/// Compaction: a `prepare` starts its key's recipe over; a `drop`, an eviction or a loss removes it;
/// a `bounds` that did not change the size is never recorded. A key whose recipe is dropped stays
/// kept on its worker, but cannot be rebuilt if that worker dies: it is then lost.
final class RecipeBook {
    let capacityBytes: Int
    private(set) var totalBytes = 0
    private var recipes: [LayoutKey: Recipe] = [:]
    /// Most recently used; follow `newer` from `oldest` to reach it.
    private var newest: Recipe?
    private var oldest: Recipe?

    init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }

    var count: Int { recipes.count }

    func recipe(for key: LayoutKey) -> Recipe? {
        recipes[key]
    }

    /// Starts `key`'s recipe over with the `prepare` body that made version `base`. Returns the keys
    /// whose recipes were dropped to make room (possibly `key` itself, when the body alone is over the bound).
    func start(_ key: LayoutKey, base: Int, prepare: HeldBody) -> [LayoutKey] {
        remove(key)
        let recipe = Recipe(key: key, base: base, prepare: prepare.retained())
        recipes[key] = recipe
        link(recipe)
        totalBytes += recipe.bytes
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
        return evictOverflow()
    }

    /// Marks `key`'s recipe as just used.
    func touch(_ key: LayoutKey) {
        guard let recipe = recipes[key], newest !== recipe else { return }
        unlink(recipe)
        link(recipe)
    }

    /// Drops `key`'s recipe.
    func remove(_ key: LayoutKey) {
        guard let recipe = recipes.removeValue(forKey: key) else { return }
        unlink(recipe)
        totalBytes -= recipe.bytes
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
