import LayoutServer

/// What the worker's pool, store and owner hand to its I/O thread (`WorkerLink`): a single daemon's
/// `IOMessage`s, and messages for the broker.
enum WorkerMessage: Sendable {
    /// A reply to send: to the broker, or out of the direct endpoint when its envelope is the direct
    /// front's (`DirectEnvelope`).
    case reply(OutgoingReply)
    /// An event to forward to the broker's publisher, with the namespace of its key.
    case event(namespace: String, topic: [UInt8], body: [UInt8])
    /// A message to the broker (frames after `MDPW01`), in order with the replies and events: EVICTED,
    /// posted by the store.
    case toBroker([[UInt8]])
    /// Stop accepting work, answer what was admitted, then return from `run()`.
    case shutdown
}
