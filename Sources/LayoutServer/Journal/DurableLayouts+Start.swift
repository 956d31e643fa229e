import Foundation
import LayoutJournal
import LayoutWire
import Synchronization

/// After a start: the daemon serves at once, whatever the key count. The journal's keys are read on a
/// thread of its own and handed to the store (their versions, and `list`'s keys); an op on a key not
/// read yet looks it up in the journal by itself first (`resolve`); a `list` waits until every key is
/// read (`whenKeysLoaded`), so that it never answers a silently partial page. Then every kept layout
/// is rebuilt in the background, most recently changed first.
extension DurableLayouts {
    /// Whether the store has every journaled key, and what waits for that.
    struct KeyLoading {
        var isDone = false
        var waiting: [@Sendable () -> Void] = []
    }

    /// Reads the journal's keys in the background, hands them to the store, then rebuilds every kept
    /// layout, `concurrency` at a time (see `restore(_:concurrency:)`).
    public func startInBackground(restoreConcurrency concurrency: Int) {
        let started = ContinuousClock.now
        journal.loadKeysInBackground(
            onFailure: { [logger] error in
                logger.error("the journal's keys cannot be read; trying again in a second", metadata: ["reason": "\(error.message)"])
            },
            loaded: { [self] keys in
                let read = ContinuousClock.now
                adopt(keys)
                journal.releaseKeysAtOpen()
                logger.info("journal keys read", metadata: [
                    "keys": "\(keys.count)", "ms": "\((ContinuousClock.now - started).wholeMicroseconds / 1000)",
                    "journal ms": "\((read - started).wholeMicroseconds / 1000)", "store ms": "\((ContinuousClock.now - read).wholeMicroseconds / 1000)",
                ])
                // Only what the restore needs (a key and its version): the states go with this closure.
                restore(keys.lazy.filter(\.isKept).map { (key: $0.key, version: $0.version) }, concurrency: concurrency)
            }
        )
    }

    /// Makes sure the store knows `key` as the journal does before an op on it runs: while the keys
    /// are still being read, one not read yet is looked up by itself, so that its version goes on from
    /// where it was (a version a client saw never comes again). Runs as an op on the key, one at a time
    /// per key. `unavailable` when the journal cannot be read now.
    func resolve(_ key: LayoutKey) throws(WireError) {
        guard !keysLoaded.load(ordering: .acquiring) else { return }
        let entry: Journal.Entry?
        do {
            entry = try journal.resolvedEntry(for: JournalKey(key))
        } catch {
            throw WireError(.unavailable, "the journal cannot be read now (\(error.message)); try again", path: "layout")
        }
        guard let entry else { return }
        store.adoptJournaled(CollectionOfOne(LayoutStore.Journaled(key: key, version: entry.version, isKept: entry.isKept)))
    }

    /// Runs `body` once the store has every journaled key: at once, on this thread, when it has them
    /// already; else on the thread that read them.
    func whenKeysLoaded(_ body: @escaping @Sendable () -> Void) {
        let now = keyLoading.withLock { loading -> Bool in
            if !loading.isDone { loading.waiting.append(body) }
            return loading.isDone
        }
        if now { body() }
    }

    /// Hands `keys` to the store a slice at a time (so that ops go on meanwhile), then runs what waited.
    private func adopt(_ keys: [JournalKeyState]) {
        // About a ms of the store's lock each: a read waits no longer.
        let slice = 1024
        for start in stride(from: 0, to: keys.count, by: slice) {
            store.adoptJournaled(keys[start..<min(keys.count, start + slice)].lazy.map {
                LayoutStore.Journaled(key: LayoutKey($0.key), version: $0.version, isKept: $0.isKept)
            })
        }
        let waiting = keyLoading.withLock { loading in
            loading.isDone = true
            defer { loading.waiting = [] }
            return loading.waiting
        }
        keysLoaded.store(true, ordering: .releasing)
        for body in waiting { body() }
    }

    /// Rebuilds the layouts of `kept` in the background, in its order, `concurrency` at a time, while
    /// the daemon serves (a layout asked for meanwhile is rebuilt at once by its request). Stops early
    /// once memory is nearly full: the rest come back when they are asked for.
    private func restore(_ keys: some Sequence<(key: JournalKey, version: Int)>, concurrency: Int) {
        let kept = Array(keys)
        guard !kept.isEmpty else { return }
        progress.withLock { $0.waiting = kept.count }
        logger.info("restoring layouts from the journal", metadata: ["layouts": "\(kept.count)", "journal": "\(journal.url)"])
        let next = Atomic<Int>(0)
        let remaining = Atomic<Int>(max(1, concurrency))
        let started = ContinuousClock.now
        for _ in 0..<max(1, concurrency) {
            let thread = Thread { [self] in
                while !stopping.load(ordering: .relaxed) {
                    let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard index < kept.count else { break }
                    // Leave room: restoring past the bound would evict the layouts just restored.
                    guard store.usage.bytes < store.capacityBytes / 10 * 9 else { break }
                    let state = kept[index]
                    let key = LayoutKey(state.key)
                    if !store.isResident(key) && store.version(forKey: key) == state.version {
                        var notYet: String?
                        restore(key, version: state.version, notYet: &notYet)
                    }
                    progress.withLock { $0.waiting -= 1 }
                }
                if remaining.wrappingSubtract(1, ordering: .relaxed).oldValue == 1 {
                    let progress = restoreProgress
                    logger.info("journal restore done", metadata: [
                        "restored": "\(progress.restored)", "lost": "\(progress.lost)", "left for when asked": "\(max(0, progress.waiting))",
                        "ms": "\((ContinuousClock.now - started).wholeMicroseconds / 1000)",
                    ])
                    self.progress.withLock { $0.waiting = 0 }
                }
            }
            thread.name = "layoutd-restore"
            thread.start()
        }
    }
}
