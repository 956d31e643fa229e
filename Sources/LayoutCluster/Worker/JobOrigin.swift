import LayoutServer

/// The connection to the broker (`WorkerMembership.conversation`) of the request a worker's job thread
/// is running, bound while it runs: the events the store emits meanwhile belong to it.
enum JobOrigin {
    @TaskLocal static var conversation: UInt64?

    /// `publish`, fenced (issue 14): an event made by a request whose connection to the broker has ended
    /// is not published. The broker gave up on that connection (it answered the request `unavailable`,
    /// and may have given the key to another worker), so the event could name a version another copy
    /// will name differently; subscribers see a gap instead, as when they miss an event. Queued requests
    /// of an ended connection do not run at all (`ClusterJobHandler`); this covers the one running.
    static func fenced(by membership: WorkerMembership, publish: @escaping @Sendable (StoreChange) -> Void) -> @Sendable (StoreChange) -> Void {
        { change in
            if let origin = conversation, origin != 0, origin != membership.conversation { return }
            publish(change)
        }
    }
}
