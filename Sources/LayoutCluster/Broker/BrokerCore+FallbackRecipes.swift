import LayoutServer

/// A key whose copy is ahead of its recipe (issue 32): a broker that takes over, or restarts, with a key's
/// recipe from the journal may be reported a copy newer than it by a worker, one that applied a change
/// whose answer never came (its broker died) or was `unavailable`. That copy is adopted, as before, but
/// the recipe, which reproduces every acknowledged change, is kept as the key's fallback until a snapshot
/// of the copy replaces it: should the copy's worker die first, the key is rebuilt from the recipe at
/// the recipe's version (the changes after it were never acknowledged) instead of being lost, and every
/// request answered `unknown_layout`.
extension BrokerCore {
    /// `record`'s recipe when it reproduces the version the key stands at; nil without one, or when the
    /// key's copy is ahead of it.
    func currentRecipe(of record: KeyRecord) -> Recipe? {
        guard let recipe = recipes.recipe(for: record.key), recipe.lastVersion == record.version else { return nil }
        return recipe
    }

    /// Whether a copy reported at `version` may be adopted over `record`'s recipe while the recipe is
    /// kept as its fallback: the recipe reproduces the version the key stood at, which the copy is ahead of.
    func keepsFallbackRecipe(_ record: KeyRecord, adoptingVersion version: Int) -> Bool {
        guard record.kept, version > record.version, let recipe = recipes.recipe(for: record.key) else { return false }
        return recipe.lastVersion == record.version
    }

    /// The key's copy is gone and it is to be rebuilt: a copy that was ahead of its recipe goes back to
    /// the recipe's version.
    func fallBackToRecipe(_ record: KeyRecord) {
        guard record.kept, let recipe = recipes.recipe(for: record.key), recipe.lastVersion < record.version else { return }
        logger.warning(
            "a copy ahead of its recipe is gone: the layout is rebuilt at the recipe's version, without the changes that were not acknowledged",
            metadata: ["layout": "\(record.key)", "version": "\(record.version)", "recipeVersion": "\(recipe.lastVersion)"]
        )
        record.version = recipe.lastVersion
    }
}
