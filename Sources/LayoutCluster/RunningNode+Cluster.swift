import LayoutServer

/// The endpoints a broker binds for its workers, and a worker joins, beside a node's front.
extension RunningNode {
    /// The back ROUTER workers join (`cluster.back`), its port resolved; for a worker, the one it joins.
    public var backEndpoint: String { endpoint(named: "back") }
    /// The XSUB workers publish their events to (`cluster.eventsIn`), its port resolved; for a worker,
    /// the one it publishes to.
    public var eventsInEndpoint: String { endpoint(named: "eventsIn") }

    func setEndpoints(front: String, events: String, stats: String, back: String, eventsIn: String) {
        setEndpoints(Endpoints(front: front, events: events, stats: stats, others: ["back": back, "eventsIn": eventsIn]))
    }
}
