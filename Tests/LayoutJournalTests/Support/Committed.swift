import Dispatch
import Synchronization
@testable import LayoutJournal

/// Appends `write` to `journal` and waits for its commit: its outcome.
@discardableResult
func write(_ write: JournalWrite, to journal: Journal) -> Result<Void, JournalError> {
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<Void, JournalError>?>(nil)
    journal.append(write) { result in
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return outcome.withLock { $0 } ?? .failure(JournalError(.writeFailed, "no outcome"))
}
