import LayoutJournal
import LayoutServer
import LayoutWire
import ZeroMQ

extension BrokerLoop: BrokerOutput {
    func journal(_ change: RecipeBook.Change, epoch: UInt64) {
        guard let journal else { return }
        if case .appended(let key, let version, _) = change, !journal.follows(JournalKey(namespace: key.namespace, name: key.name), changeVersion: version),
           let recipe = core?.recipes.recipe(for: key) {
            // The journal's chain for the key is broken (a write of it failed): the whole recipe, as this
            // broker holds it, is written again, this change included, so a restart can rebuild the key.
            write(.started(key, version: recipe.base, body: recipe.bodies[0]), to: journal, epoch: epoch)
            for (offset, body) in recipe.bodies.enumerated().dropFirst() {
                write(.appended(key, version: recipe.base + offset, body: body), to: journal, epoch: epoch)
            }
            return
        }
        write(change, to: journal, epoch: epoch)
    }

    func journalEpoch(of key: LayoutKey, epoch: UInt64) {
        guard let journal else { return }
        write(.epoch(JournalKey(namespace: key.namespace, name: key.name), epoch: epoch), to: journal)
    }

    private func write(_ change: RecipeBook.Change, to journal: Journal, epoch: UInt64) {
        write(change.write(epoch: epoch), to: journal)
    }

    private func write(_ record: JournalWrite, to journal: Journal) {
        let sequence = journaled.askWrite()
        let mailbox = self.mailbox
        journal.append(record) { result in
            switch result {
            case .success: mailbox.post(.journaled(sequence: sequence, failure: nil))
            case .failure(let error): mailbox.post(.journaled(sequence: sequence, failure: error.message))
            }
        }
    }

    func journalStanding(of key: LayoutKey) -> JournalStanding {
        guard let journal else { return .current }
        if journal.writeFailed(of: JournalKey(namespace: key.namespace, name: key.name)) { return .missed }
        return journaled.isSettled ? .current : .unsettled
    }

    func replyWhenJournaled(to envelope: Envelope, body: HeldBody, trailing: [HeldBody], id: RequestID?) {
        guard journal != nil else { return reply(to: envelope, body: body, trailing: trailing) }
        journaled.hold(envelope: envelope, body: body, trailing: trailing, id: id)
    }

    func reply(to envelope: Envelope, body: HeldBody, trailing: [HeldBody]) {
        // Past its lease's window, a broker says nothing: another may be acknowledging newer changes.
        guard servingWindow.isOpen else { return }
        front.send(envelope: envelope) { socket throws(ZeroMQError) in
            guard try socket.send(body.frame(), flags: trailing.isEmpty ? .dontWait : [.dontWait, .sendMore]) else { return }
            for (index, frame) in trailing.enumerated() {
                _ = try socket.send(frame.frame(), flags: index == trailing.count - 1 ? .dontWait : [.dontWait, .sendMore])
            }
        }
    }

    func reply(to envelope: Envelope, bytes: [UInt8]) {
        guard servingWindow.isOpen else { return }
        front.send(envelope: envelope, bytes: bytes)
    }

    func send(_ order: WorkerOrder, to routingID: [UInt8]) -> Bool {
        sentOnBack = true
        do {
            // Past the broker's own lease, no read lease: its workers stop answering reads too.
            let grant = order.isHeartbeat && servingWindow.isOpen ? core?.leaseGrant(forWorkerAt: routingID) : nil
            return try order.send(to: routingID, on: back, epoch: core?.epoch ?? 0, grant: grant)
        } catch {
            if error.code != .hostUnreachable {
                logger.warning("send to a worker failed", metadata: ["error": "\(error)"])
            }
            return false
        }
    }

    /// The `route` event of one pass. Without CURVE, once, to everyone (topic `route`). With CURVE an
    /// event without a namespace reaches nobody, so it goes to each namespace whose table changed, and the
    /// event thread sends it under each of that namespace's keys (`<key>route`); a change of the live
    /// workers goes to every namespace of the allow-list as it stands now (admins' too: `route` answers an
    /// admin in its own namespace, as anyone).
    func publishRoute(_ event: WireEvent, to changes: RouteChanges) {
        guard let gate else {
            publish(event, namespace: "")
            return
        }
        let namespaces = changes.everyone ? gate.namespaces : Array(changes.namespaces)
        // With CURVE no key is kept in "" (`adopt` releases such copies), and "" reaches nobody anyway.
        for namespace in namespaces where !namespace.isEmpty {
            // Each namespace's event names its own keys that changed.
            publish(core?.routeEvent(in: namespace) ?? event, namespace: namespace)
        }
    }

    /// Into the event stream as a worker publishes: `[topic, body]`, and the namespace third when there
    /// is one (the events thread publishes it under that namespace's keys). Without CURVE no client
    /// could receive an event of a namespace: none is published.
    func publish(_ event: WireEvent, namespace: String) {
        if namespace.isEmpty {
            _ = try? publisher.send(multipart: [event.topic, event.body], flags: .dontWait)
        } else if gate != nil {
            _ = try? publisher.send(multipart: [event.topic, event.body, Array(namespace.utf8)], flags: .dontWait)
        }
    }
}
