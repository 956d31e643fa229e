internal import CZeroMQ
import Synchronization

/// A libzmq context: the I/O threads and the registry behind every socket made from it.
///
/// A zmq context is thread-safe (libzmq documents it so), hence `Sendable`: share one per process and
/// make each thread's sockets from it. The handle lives in a `Mutex` only so that termination and socket
/// creation cannot race on a handle that `zmq_ctx_term` is about to free.
///
/// Every socket keeps its context alive, so `deinit` only runs once all sockets are gone and never blocks.
/// Sockets default to linger 0, so neither `terminate()` nor `deinit` waits for unsent messages.
public final class Context: Sendable {
    private enum State {
        case open(UnsafeMutableRawPointer)
        case terminated
    }

    private let state: Mutex<State>

    /// Creates a context with `ioThreads` background I/O threads (libzmq's default is 1).
    public init(ioThreads: Int32 = 1) throws(ZeroMQError) {
        let handle = try LibZMQ.newContext()
        do {
            try LibZMQ.setContextOption(handle, ZMQ_IO_THREADS, ioThreads)
        } catch {
            LibZMQ.terminateContext(handle)
            throw error
        }
        state = Mutex(.open(handle))
    }

    deinit {
        terminate()
    }

    /// Makes every blocking call on this context's sockets, now and later, fail with
    /// `ZeroMQError.Code.terminated` (`ETERM`), and refuses new sockets. Returns at once; the owners of
    /// the sockets should then close them.
    public func shutdown() {
        state.withLock { state in
            if case .open(let handle) = state { LibZMQ.shutdownContext(handle) }
        }
    }

    /// Shuts the context down and frees it once every socket made from it is closed.
    ///
    /// Blocks until then (that is libzmq's contract), so call it after closing your sockets or from a
    /// thread that owns none; sockets linger 0 by default, so closed sockets never hold it up. Idempotent.
    public func terminate() {
        let handle: UnsafeMutableRawPointer? = state.withLock { state in
            guard case .open(let handle) = state else { return nil }
            LibZMQ.shutdownContext(handle)
            state = .terminated
            return handle
        }
        // Outside the lock: waiting for sockets here must not stop other threads from reaching `shutdown`.
        if let handle { LibZMQ.terminateContext(handle) }
    }

    /// Whether `terminate()` has been called.
    public var isTerminated: Bool {
        state.withLock { state in
            if case .terminated = state { return true }
            return false
        }
    }

    /// Creates a raw socket under the lock, so the handle cannot be freed meanwhile.
    func makeSocketHandle(type: Int32) throws(ZeroMQError) -> UnsafeMutableRawPointer {
        try state.withLock { (state) throws(ZeroMQError) -> UnsafeMutableRawPointer in
            guard case .open(let handle) = state else {
                throw ZeroMQError(code: .terminated, operation: "zmq_socket")
            }
            return try LibZMQ.newSocket(handle, type: type)
        }
    }
}

/// The version of the libzmq library linked at run time.
public var zeroMQVersion: (major: Int, minor: Int, patch: Int) {
    let version = LibZMQ.version
    return (Int(version.major), Int(version.minor), Int(version.patch))
}
