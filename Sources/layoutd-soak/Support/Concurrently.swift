import Dispatch
import Foundation
import Synchronization

/// Runs `body(0..<count)` on `count` threads of their own (each client owns its sockets, which belong to
/// one thread) and returns their results in index order once all have finished.
func concurrently<Result: Sendable>(_ count: Int, name: String, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
    let results = Mutex<[Int: Result]>([:])
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            let result = body(index)
            results.withLock { $0[index] = result }
            group.leave()
        }
        thread.name = "\(name)-\(index)"
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
    return results.withLock { all in (0..<count).compactMap { all[$0] } }
}

/// A thread running `body` in the background; `join()` waits for it and returns its result.
final class BackgroundThread<Result: Sendable>: Sendable {
    private let result = Mutex<Result?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(name: String, _ body: @escaping @Sendable () -> Result) {
        let thread = Thread {
            let value = body()
            self.result.withLock { $0 = value }
            self.done.signal()
        }
        thread.name = name
        thread.start()
    }

    func join() -> Result? {
        done.wait()
        return result.withLock { $0 }
    }
}

/// A flag one thread sets and others poll.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// A count several threads add to.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
