import LayoutWire

extension StoreChange {
    /// The event this change publishes, and the namespace of the layout it is about (whose subscribers
    /// alone receive it with CURVE; "" otherwise).
    public var event: (namespace: String, event: WireEvent) {
        switch self {
        case let .invalidated(key, version, reason, contentSize, _):
            return (key.namespace, EventEncoder.invalidated(layout: key.name, version: version, reason: reason, contentSize: contentSize))
        case let .batch(key, version, members, contentSize):
            return (key.namespace, EventEncoder.batch(layout: key.name, version: version, members: members, contentSize: contentSize))
        }
    }
}
