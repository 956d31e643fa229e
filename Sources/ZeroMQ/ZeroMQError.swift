internal import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed libzmq call: the errno it set, the call that failed and libzmq's own description.
///
/// "Would block" (`EAGAIN`) is not reported as an error by this module: receives return `nil` and sends
/// return `false` instead, as cppzmq and pyzmq's non-blocking calls do.
public struct ZeroMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The errno value, with named members for the ones callers commonly handle.
    public let code: Code
    /// The libzmq call that failed, such as `zmq_bind(tcp://127.0.0.1:5555)`.
    public let operation: String
    /// `zmq_strerror(code)`.
    public let message: String

    /// An error for `code` raised by `operation`, described by `zmq_strerror`; for test doubles and for
    /// wrappers that detect a failure themselves.
    public init(code: Code, operation: String) {
        self.code = code
        self.operation = operation
        self.message = LibZMQ.describe(code.rawValue)
    }

    public var description: String { "\(operation): \(message) (errno \(code.rawValue))" }
}

extension ZeroMQError {
    /// An errno value as libzmq reports it; libzmq's own codes (`ETERM`, `EFSM`, ...) are included.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `EAGAIN`: the operation would block. Only thrown where blocking was not an option to begin with.
        public static let again = Code(rawValue: EAGAIN)
        /// `EINTR`: interrupted by a signal. Retried internally, so rarely seen.
        public static let interrupted = Code(rawValue: EINTR)
        /// `ETERM`: the socket's context was shut down or terminated; close the socket.
        public static let terminated = Code(rawValue: ETERM)
        /// `EHOSTUNREACH`: a ROUTER with `routerMandatory` has no peer with that routing id.
        public static let hostUnreachable = Code(rawValue: EHOSTUNREACH)
        /// `EINVAL`: an invalid argument, such as a malformed endpoint or option value.
        public static let invalidArgument = Code(rawValue: EINVAL)
        /// `EPROTONOSUPPORT`: the endpoint's transport is not supported.
        public static let protocolNotSupported = Code(rawValue: EPROTONOSUPPORT)
        /// `ENOCOMPATPROTO`: the transport does not work with this socket type.
        public static let incompatibleProtocol = Code(rawValue: ENOCOMPATPROTO)
        /// `EADDRINUSE`: the address is already bound.
        public static let addressInUse = Code(rawValue: EADDRINUSE)
        /// `EADDRNOTAVAIL`: the address is not local, or not bound (for unbind).
        public static let addressNotAvailable = Code(rawValue: EADDRNOTAVAIL)
        /// `ENODEV`: the named interface does not exist.
        public static let noDevice = Code(rawValue: ENODEV)
        /// `ENOENT`: for disconnect and unbind, the endpoint was never connected or bound.
        public static let noEntry = Code(rawValue: ENOENT)
        /// `ENOTSOCK`: the socket is closed.
        public static let notSocket = Code(rawValue: ENOTSOCK)
        /// `EFSM`: the operation is not allowed in the socket's current state (REQ sending twice).
        public static let invalidState = Code(rawValue: EFSM)
        /// `ENOTSUP`: the operation is not supported by this socket type (receiving on PUB).
        public static let notSupported = Code(rawValue: ENOTSUP)
        /// `EMTHREAD`: no I/O thread is available.
        public static let noIOThread = Code(rawValue: EMTHREAD)
        /// `EMFILE`: too many open sockets or files.
        public static let tooManyOpenFiles = Code(rawValue: EMFILE)
        /// `ENOMEM`: out of memory.
        public static let noMemory = Code(rawValue: ENOMEM)
    }
}
