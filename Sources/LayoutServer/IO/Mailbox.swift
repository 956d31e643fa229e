import Synchronization

/// A queue from any thread to the I/O thread, which is woken by `WakeUpSignal` when it fills.
public final class Mailbox<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])
    public let wakeUp: WakeUpSignal

    public init() throws(ServerError) {
        wakeUp = try WakeUpSignal()
    }

    /// Hands `item` to the I/O thread.
    public func post(_ item: Item) {
        let wasEmpty = items.withLock { items in
            items.append(item)
            return items.count == 1
        }
        if wasEmpty { wakeUp.signal() }
    }

    /// Everything posted so far, in order (called by the I/O thread).
    public func takeAll() -> [Item] {
        wakeUp.drain()
        return items.withLock { items in
            let taken = items
            items.removeAll(keepingCapacity: true)
            return taken
        }
    }
}
