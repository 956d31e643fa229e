/// The broker's own counters (its stats socket's `cluster.routing`).
struct RoutingCounters {
    var keyed = 0
    var stateless = 0
    var lists = 0
    var held = 0
    var retried = 0
    var unavailable = 0
    var busy = 0
    var restores = 0
    var restoreFailures = 0
    var seeds = 0
    var moves = 0
    /// FENCEs sent: keys moving away from a worker with a direct endpoint.
    var fences = 0
    var lost = 0
    var released = 0
    /// Copies adopted after a restart and then replaced by a newer copy another worker reported.
    var supersededCopies = 0
    var workersJoined = 0
    var workersDied = 0
    /// Times the epoch advanced because a worker was declared dead (fencing what it may still do).
    var epochAdvances = 0
    /// Connections of workers that dropped; keys that waited for their worker's return and were taken
    /// back from it (no rebuild); keys whose worker did not return in time, rebuilt elsewhere.
    var connectionsDropped = 0
    var keysKeptThroughDrops = 0
    var keysRebuiltAfterDrops = 0
    /// Copies rebuilt on another worker while a dropped worker's keys wait for its return, and those of
    /// them that became the key's copy because it did not return in time (`BrokerCore+Returns`; those
    /// count in `restores` too).
    var standbyRebuilds = 0
    var standbysUsed = 0
    /// Keys taken back without a rebuild by the copy of a worker declared dead that came back, the key
    /// unchanged since its rebuild elsewhere (`BrokerCore+FormerCopies`).
    var formerCopiesTakenBack = 0
    /// Evictions reported by the key's owner (the key is no longer kept), and by a worker whose copy
    /// was not the key's (ignored: a stale copy).
    var evictions = 0
    var staleEvictions = 0
    var eventsPublished = 0
    var recipesEvicted = 0
    /// Recipes dropped because an acknowledged change's version did not follow on from theirs.
    var recipesDropped = 0
    /// Snapshots that compacted a recipe; snapshots asked for and not used (failed, outdated, not smaller).
    var snapshots = 0
    var snapshotFailures = 0
    /// Keys without a recipe given one by a snapshot of their layout (`BrokerCore.reprotect`).
    var reprotected = 0
}
