import LayoutEngine
import LayoutServer
import LayoutWire

extension BrokerCore {
    /// A REPLY from `worker`. Replies to requests go back to their clients; what they acknowledge is
    /// learned first (versions, recipes); replies to rebuilds, snapshots and list parts finish those.
    /// `leading` is the frame before the body, which only a snapshot taken has (its header).
    /// A REPLY with one frame after its delimiter (`body`), or a snapshot's two (`leading`, then `body`).
    func workerReply(from worker: WorkerRecord, token: RequestToken, body: HeldBody, leading: [UInt8]? = nil) {
        workerReply(from: worker, token: token, frames: (leading.map { [HeldBody($0)] } ?? []) + [body])
    }

    /// A REPLY's frames after its delimiter (at least one): a reply body, a binary reply's JSON header
    /// and its columns, or a snapshot's header and body.
    func workerReply(from worker: WorkerRecord, token: RequestToken, frames: [HeldBody]) {
        guard let first = frames.first, let last = frames.last else { return }
        guard let pending = pending[token], pending.worker === worker else {
            // A late reply to a request already answered otherwise (its worker was declared dead).
            return
        }
        finish(pending)
        switch pending.kind {
        case .client(let request, let record):
            let body = first
            let summary = body.withUnsafeBytes { ReplySummary(scanning: $0, readingResult: request.route.operation?.changesLayout ?? false) }
            if let record, summary.errorCode == WireError.Code.unknownLayout.rawValue, record.kept, !record.isSettled {
                // It went behind a rebuild that did not happen (the worker's queue was full; the rebuild
                // goes again) and met no layout: nothing was done, and the key is not gone. It waits for
                // the rebuild instead of reading as an eviction, which would drop the recipe and release
                // the real copy with no `lost` (issue 14, defect 2).
                record.inFlight -= 1
                hold(request, on: record)
                flushHeld(record)
                keyQuieted(record)
                return
            }
            let writesBefore = journalWrites
            acknowledgesAfterJournal = false
            if let record {
                record.inFlight -= 1
                if let operation = request.route.operation { learn(summary, of: operation, request: request, on: record, epoch: pending.epoch) }
            }
            // A binary reply's columns pass through as they came, unread and uncopied. A change the
            // journal records is acknowledged only once it is written.
            if journalWrites != writesBefore || acknowledgesAfterJournal {
                output.replyWhenJournaled(to: request.envelope, body: body, trailing: Array(frames.dropFirst()), id: request.route.id)
            } else {
                output.reply(to: request.envelope, body: body, trailing: Array(frames.dropFirst()))
            }
            self.record(request, errorCode: summary.ok == false ? summary.errorCode ?? "internal" : nil)
            if let record { keyQuieted(record) }
        case .restore(let record, let header, let fromRecipe):
            if fromRecipe { worker.restoresInFlight -= 1 }
            record.inFlight -= 1
            restoreFinished(record, header: header, at: worker, outcome: RestoreOutcome(body: first.array), epoch: pending.epoch)
            keyQuieted(record)
        case .standby(let record, _):
            worker.restoresInFlight -= 1
            standbyFinished(record, token: token, at: worker, outcome: RestoreOutcome(body: first.array))
        case .snapshot(let record, let recipe):
            record.inFlight -= 1
            // Taken: the header, then the body; not taken: the header alone.
            let taken = frames.count >= 2
            snapshotFinished(record, recipe: recipe, header: first.array, body: taken ? last : nil, from: worker)
            keyQuieted(record)
        case .listPart(let aggregate):
            aggregate.waiting.remove(token)
            collect(first, from: worker, into: aggregate)
        case .fence(let record):
            // The old owner answers no direct read of the key any more: the move may go on.
            record.inFlight -= 1
            keyQuieted(record)
        }
        pumpRestores(at: worker)
    }

    /// Forgets a pending entry and gives its worker its credit back.
    func finish(_ pending: Pending) {
        self.pending[pending.token] = nil
        pending.worker.pendingTokens.remove(pending.token)
        pending.worker.inFlight -= 1
    }

    /// Updates a key from an acknowledged reply: its version, whether it is kept, its recipe.
    /// `epoch` is the one the request was sent under, which the worker stamped the change with.
    private func learn(_ summary: ReplySummary, of operation: OperationName, request: ClientRequest, on record: KeyRecord, epoch: UInt64) {
        guard summary.ok == true else {
            if summary.errorCode == WireError.Code.unknownLayout.rawValue, record.kept, operation != .prepare {
                // The worker no longer keeps it (evicted; the event may still be on its way).
                record.kept = false
                recipes.remove(record.key)
            }
            return
        }
        guard operation.changesLayout, let version = summary.version else { return }
        // Evicted since: its worker's pool ran another key's job that evicted this one between storing this
        // change and answering it, and the eviction, posted first, was believed first. The key is gone at
        // the eviction's version; learning this change would bring it back below that version.
        guard record.kept || version > record.version else { return }
        assignEpoch(record, epoch)
        switch operation {
        case .prepare:
            record.kept = true
            record.version = version
            record.contentSize = summary.contentSize
            noteEvicted(recipes.start(record.key, base: version, prepare: request.body))
        case .bounds:
            guard summary.invalidated == true else { return }
            advance(record, to: version, contentSize: summary.contentSize, change: request.body)
        case .update, .diff:
            advance(record, to: version, contentSize: summary.contentSize, change: request.body)
        case .drop:
            record.kept = false
            record.version = version
            recipes.remove(record.key, droppedAt: version)
        case .ping, .layout, .query, .list:
            return
        }
    }

    /// A change acknowledged at `version`: appended to the recipe when the recipe is at the version
    /// before it (otherwise the recipe cannot reproduce it and is dropped).
    private func advance(_ record: KeyRecord, to version: Int, contentSize: Size?, change: HeldBody) {
        // A copy ahead of its recipe (`BrokerCore+FallbackRecipes`) does not follow on from it either.
        let consecutive = record.kept && record.version == version - 1 && recipes.recipe(for: record.key).map { $0.lastVersion == version - 1 } ?? true
        record.kept = true
        record.version = version
        if let contentSize { record.contentSize = contentSize }
        guard recipes.recipe(for: record.key) != nil else {
            acknowledgeWithoutRecipe(record)
            return
        }
        if consecutive {
            noteEvicted(recipes.append(record.key, change: change))
            compactIfDue(record)
        } else if recipes.recipe(for: record.key) != nil {
            // The recipe cannot reproduce this version (a change it never saw came between): dropped,
            // and counted, since the key is unprotected from here until its next prepare.
            recipes.unprotect(record.key, version: version)
            counters.recipesDropped += 1
            logger.warning("recipe dropped: a change's version did not follow on", metadata: ["layout": "\(record.key)", "version": "\(version)"])
            reprotect(record)
        }
    }

    /// A change to a key kept without a recipe is acknowledged with no journal write, as long as the
    /// journal holds no recipe of the key either. When the write that removed its recipe there (an
    /// eviction from the book, an unprotect) failed, the journal still has the old recipe, from which a
    /// restarted broker, or one taking over, would rebuild the key at an older version than this change
    /// acknowledges: the key's record is written again first. While that removal may still be on its
    /// way, the acknowledgement waits for the writes before it, so that it is `unavailable` if it failed.
    private func acknowledgeWithoutRecipe(_ record: KeyRecord) {
        switch output.journalStanding(of: record.key) {
        case .current: return
        case .unsettled: acknowledgesAfterJournal = true
        case .missed: recipes.recordKeptWithoutRecipe(record.key, version: record.version)
        }
    }

    func noteEvicted(_ evicted: [LayoutKey]) {
        counters.recipesEvicted += evicted.count
    }

    /// After a reply or rebuild on `record`: a drained key continues its move.
    func keyQuieted(_ record: KeyRecord) {
        guard record.inFlight == 0 else { return }
        if case .draining = record.phase { drained(record) }
        if record.rebuildWhenQuiet, case .queued(let target) = record.phase {
            record.rebuildWhenQuiet = false
            enqueueRestore(record.key, at: target, urgent: true)
            pumpRestores(at: target)
        }
    }
}
