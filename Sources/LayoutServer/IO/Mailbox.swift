import Synchronization

/// A queue from any thread to the I/O thread, which `WakeUpSignal` wakes only when it may be asleep.
///
/// Why not signal on every post: a signal is a `write` to a pipe, and the poll that returns for it, a
/// `read` to empty it, and a thread wake-up; while the I/O thread is busy sending earlier replies it
/// will look at the mailbox again before sleeping anyway.
public final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        /// The receiver said it is about to block and has not taken anything since.
        var receiverMayBlock = false
    }

    private let state = Mutex(State())
    public let wakeUp: WakeUpSignal

    public init() throws(ServerError) {
        wakeUp = try WakeUpSignal()
    }

    /// Hands `item` to the I/O thread.
    public func post(_ item: Item) {
        let wake = state.withLock { state in
            state.items.append(item)
            guard state.receiverMayBlock else { return false }
            state.receiverMayBlock = false
            return true
        }
        if wake { wakeUp.signal() }
    }

    /// Called by the I/O thread before it blocks in a poll that watches `wakeUp`: false when items are
    /// waiting (take them instead of blocking); true when it may block, and then the next post
    /// signals `wakeUp`.
    public func prepareToBlock() -> Bool {
        state.withLock { state in
            guard state.items.isEmpty else { return false }
            state.receiverMayBlock = true
            return true
        }
    }

    /// Moves everything posted so far, in order, into `buffer` (called by the I/O thread, with an
    /// emptied buffer: the two arrays trade places, so none is allocated or freed per call). Empty the
    /// pipe separately, when a poll reports it readable.
    public func takeAll(into buffer: inout [Item]) {
        state.withLock { state in
            state.receiverMayBlock = false
            guard !state.items.isEmpty else { return }
            if buffer.isEmpty {
                swap(&state.items, &buffer)
            } else {
                buffer.append(contentsOf: state.items)
                state.items.removeAll(keepingCapacity: true)
            }
        }
    }
}
