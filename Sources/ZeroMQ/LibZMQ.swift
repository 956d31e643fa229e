internal import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The raw backend: every `zmq_*` call of the module lives in this file (as pyzmq keeps its backend apart
/// from its friendly layer), so errno handling is written once, in `check`.
enum LibZMQ {
    /// What a call does when libzmq reports `EINTR`.
    enum Interruption {
        /// Call again: right for calls that made no progress and have nothing to report.
        case retry
        /// Report "nothing happened" (`nil`) and let the caller's loop decide; used by `zmq_poll`, whose
        /// timeout would otherwise start again from the beginning on every signal.
        case returnNothing
    }

    /// Runs `call` until it gives a definite answer. `EINTR` is retried (or reported as nothing, see
    /// `Interruption`), `EAGAIN` is "would block / no message" and comes back as `nil`, and any other
    /// failure throws a `ZeroMQError` naming `operation`.
    ///
    /// A retried blocking receive or send starts its `receiveTimeout` / `sendTimeout` over. Signals are
    /// rare, and a thread that blocks them (leaving them to one signal-handling thread) never sees EINTR.
    static func check(
        _ operation: String,
        onInterrupt interruption: Interruption = .retry,
        _ call: () -> Int32
    ) throws(ZeroMQError) -> Int32? {
        while true {
            let result = call()
            if result != -1 { return result }
            let code = zmq_errno()
            switch code {
            case EINTR where interruption == .retry:
                continue
            case EINTR, EAGAIN:
                return nil
            default:
                throw ZeroMQError(code: ZeroMQError.Code(rawValue: code), operation: operation)
            }
        }
    }

    /// `check` for calls where "would block" cannot happen or is itself the failure (bind, options, ...).
    @discardableResult
    static func require(_ operation: String, _ call: () -> Int32) throws(ZeroMQError) -> Int32 {
        guard let result = try check(operation, call) else {
            throw ZeroMQError(code: .again, operation: operation)
        }
        return result
    }

    static func describe(_ code: Int32) -> String {
        guard let text = zmq_strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    static var version: (major: Int32, minor: Int32, patch: Int32) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }

    // MARK: Context

    static func newContext() throws(ZeroMQError) -> UnsafeMutableRawPointer {
        guard let context = zmq_ctx_new() else {
            throw ZeroMQError(code: .init(rawValue: zmq_errno()), operation: "zmq_ctx_new")
        }
        return context
    }

    static func setContextOption(_ context: UnsafeMutableRawPointer, _ option: Int32, _ value: Int32) throws(ZeroMQError) {
        try require("zmq_ctx_set") { zmq_ctx_set(context, option, value) }
    }

    static func shutdownContext(_ context: UnsafeMutableRawPointer) {
        // Fails only with EFAULT for an invalid handle, which the owner never passes.
        _ = zmq_ctx_shutdown(context)
    }

    static func terminateContext(_ context: UnsafeMutableRawPointer) {
        // EINTR is retried; the only other failure is EFAULT for an invalid handle.
        _ = try? check("zmq_ctx_term") { zmq_ctx_term(context) }
    }

    // MARK: Socket lifecycle

    static func newSocket(_ context: UnsafeMutableRawPointer, type: Int32) throws(ZeroMQError) -> UnsafeMutableRawPointer {
        guard let socket = zmq_socket(context, type) else {
            throw ZeroMQError(code: .init(rawValue: zmq_errno()), operation: "zmq_socket")
        }
        return socket
    }

    static func close(_ socket: UnsafeMutableRawPointer) {
        // Fails only with ENOTSOCK for an invalid handle, which the owner never passes.
        _ = zmq_close(socket)
    }

    static func bind(_ socket: UnsafeMutableRawPointer, _ endpoint: String) throws(ZeroMQError) {
        try require("zmq_bind(\(endpoint))") { zmq_bind(socket, endpoint) }
    }

    static func unbind(_ socket: UnsafeMutableRawPointer, _ endpoint: String) throws(ZeroMQError) {
        try require("zmq_unbind(\(endpoint))") { zmq_unbind(socket, endpoint) }
    }

    static func connect(_ socket: UnsafeMutableRawPointer, _ endpoint: String) throws(ZeroMQError) {
        try require("zmq_connect(\(endpoint))") { zmq_connect(socket, endpoint) }
    }

    static func disconnect(_ socket: UnsafeMutableRawPointer, _ endpoint: String) throws(ZeroMQError) {
        try require("zmq_disconnect(\(endpoint))") { zmq_disconnect(socket, endpoint) }
    }

    /// Starts (`endpoint` non-nil) or stops (`nil`) reporting `events` of `socket` on an inproc PAIR.
    static func monitor(_ socket: UnsafeMutableRawPointer, _ endpoint: String?, events: Int32) throws(ZeroMQError) {
        try require("zmq_socket_monitor(\(endpoint ?? "nil"))") { zmq_socket_monitor(socket, endpoint, events) }
    }

    // MARK: Options

    static func setOption(
        _ socket: UnsafeMutableRawPointer, _ option: Int32, _ value: UnsafeRawBufferPointer
    ) throws(ZeroMQError) {
        try require("zmq_setsockopt(\(option))") {
            zmq_setsockopt(socket, option, value.baseAddress, value.count)
        }
    }

    /// Reads an option into a buffer of `capacity` bytes; returns the bytes libzmq wrote.
    static func option(_ socket: UnsafeMutableRawPointer, _ option: Int32, capacity: Int) throws(ZeroMQError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 1), alignment: 8)
        defer { buffer.deallocate() }
        var size = capacity
        try require("zmq_getsockopt(\(option))") { zmq_getsockopt(socket, option, buffer.baseAddress, &size) }
        return Array(buffer.prefix(min(size, capacity)))
    }

    // MARK: Messages

    static func initMessage(_ message: UnsafeMutablePointer<zmq_msg_t>) {
        // Cannot fail: it only zeroes the structure.
        _ = zmq_msg_init(message)
    }

    static func initMessage(_ message: UnsafeMutablePointer<zmq_msg_t>, size: Int) throws(ZeroMQError) {
        try require("zmq_msg_init_size") { zmq_msg_init_size(message, size) }
    }

    /// Adopts `buffer`, which must come from `malloc`: libzmq calls `free` when its last reference goes,
    /// possibly on one of its I/O threads. Frees it here if libzmq refuses it, so ownership always passes.
    static func initMessage(_ message: UnsafeMutablePointer<zmq_msg_t>, adopting buffer: UnsafeMutableRawBufferPointer) throws(ZeroMQError) {
        do {
            // A capture-free closure, so Swift emits it as the C function pointer `zmq_free_fn`.
            try require("zmq_msg_init_data") {
                zmq_msg_init_data(message, buffer.baseAddress, buffer.count, { data, _ in free(data) }, nil)
            }
        } catch {
            free(buffer.baseAddress)
            throw error
        }
    }

    /// Shares `bytes`, kept alive by `owner` (retained here, released when libzmq's last reference goes,
    /// possibly on one of its I/O threads). Released here if libzmq refuses them.
    static func initMessage(_ message: UnsafeMutablePointer<zmq_msg_t>, sharing bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(ZeroMQError) {
        let hint = Unmanaged.passRetained(owner).toOpaque()
        do {
            try require("zmq_msg_init_data") {
                zmq_msg_init_data(message, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count, { _, hint in
                    guard let hint else { return }
                    Unmanaged<AnyObject>.fromOpaque(hint).release()
                }, hint)
            }
        } catch {
            Unmanaged<AnyObject>.fromOpaque(hint).release()
            throw error
        }
    }

    static func closeMessage(_ message: UnsafeMutablePointer<zmq_msg_t>) {
        // Fails only with EFAULT for an invalid message, which the owner never passes.
        _ = zmq_msg_close(message)
    }

    static func messageData(_ message: UnsafeMutablePointer<zmq_msg_t>) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: zmq_msg_data(message), count: zmq_msg_size(message))
    }

    static func messageSize(_ message: UnsafeMutablePointer<zmq_msg_t>) -> Int {
        zmq_msg_size(message)
    }

    static func messageHasMore(_ message: UnsafeMutablePointer<zmq_msg_t>) -> Bool {
        zmq_msg_more(message) != 0
    }

    /// Makes `destination` (initialized, empty) share `source`'s content: large contents are reference
    /// counted, small ones copied (`zmq_msg_copy`).
    static func copyMessage(_ destination: UnsafeMutablePointer<zmq_msg_t>, _ source: UnsafeMutablePointer<zmq_msg_t>) throws(ZeroMQError) {
        try require("zmq_msg_copy") { zmq_msg_copy(destination, source) }
    }

    /// An integer property of a received message (`zmq_msg_get`); nil when libzmq has none to give.
    static func messageProperty(_ message: UnsafeMutablePointer<zmq_msg_t>, _ property: Int32) -> Int32? {
        let value = zmq_msg_get(message, property)
        return value == -1 ? nil : value
    }

    // MARK: Sending and receiving

    /// Sends a copy of `bytes`; `false` when the socket would block.
    static func send(_ socket: UnsafeMutableRawPointer, _ bytes: UnsafeRawBufferPointer, flags: Int32) throws(ZeroMQError) -> Bool {
        try check("zmq_send") { zmq_send(socket, bytes.baseAddress, bytes.count, flags) } != nil
    }

    /// Hands `message` to the socket (on success libzmq leaves it empty); `false` when the socket would
    /// block, in which case the message is untouched.
    static func send(_ socket: UnsafeMutableRawPointer, _ message: UnsafeMutablePointer<zmq_msg_t>, flags: Int32) throws(ZeroMQError) -> Bool {
        try check("zmq_msg_send") { zmq_msg_send(message, socket, flags) } != nil
    }

    /// Receives into `message`; `false` when there is nothing to receive (non-blocking or timed out).
    static func receive(_ socket: UnsafeMutableRawPointer, into message: UnsafeMutablePointer<zmq_msg_t>, flags: Int32) throws(ZeroMQError) -> Bool {
        try check("zmq_msg_recv") { zmq_msg_recv(message, socket, flags) } != nil
    }

    // MARK: Message properties

    /// The metadata property `name` of the connection `message` came in on (`zmq_msg_gets`); nil when
    /// the connection has no such property (EINVAL), as for every property of a sent message.
    static func messageProperty(_ message: UnsafeMutablePointer<zmq_msg_t>, _ name: String) -> String? {
        guard let value = zmq_msg_gets(message, name) else { return nil }
        return String(cString: value)
    }

    // MARK: CURVE and Z85

    /// Whether this libzmq was built with `capability` (`zmq_has`): "curve", "ipc", ...
    static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }

    /// A fresh key pair in Z85 (`zmq_curve_keypair`); `ENOTSUP` when libzmq was built without CURVE.
    static func curveKeyPair() throws(ZeroMQError) -> (publicKey: String, secretKey: String) {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        try require("zmq_curve_keypair") { zmq_curve_keypair(&publicKey, &secretKey) }
        return (string(fromNulTerminated: publicKey), string(fromNulTerminated: secretKey))
    }

    /// The Z85 public key that belongs to a Z85 secret key (`zmq_curve_public`).
    static func curvePublicKey(secretKey: String) throws(ZeroMQError) -> String {
        var publicKey = [CChar](repeating: 0, count: 41)
        try require("zmq_curve_public") { zmq_curve_public(&publicKey, secretKey) }
        return string(fromNulTerminated: publicKey)
    }

    /// `bytes` in Z85 (`zmq_z85_encode`); nil unless the count is a multiple of 4.
    static func z85Encode(_ bytes: [UInt8]) -> String? {
        guard bytes.count % 4 == 0 else { return nil }
        var text = [CChar](repeating: 0, count: bytes.count / 4 * 5 + 1)
        guard zmq_z85_encode(&text, bytes, bytes.count) != nil else { return nil }
        return string(fromNulTerminated: text)
    }

    /// The bytes of Z85 `text` (`zmq_z85_decode`); nil unless the length is a positive multiple of 5
    /// and every character is in the Z85 alphabet.
    static func z85Decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        // zmq_z85_decode reads up to the first NUL; a text with one inside is not Z85.
        guard !utf8.isEmpty, utf8.count % 5 == 0, !utf8.contains(0) else { return nil }
        var bytes = [UInt8](repeating: 0, count: utf8.count / 5 * 4)
        guard zmq_z85_decode(&bytes, text) != nil else { return nil }
        return bytes
    }

    private static func string(fromNulTerminated characters: [CChar]) -> String {
        let bytes = characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Proxies

    /// Runs libzmq's proxy until `control` says TERMINATE (0) or the context ends (throws `.terminated`).
    static func proxySteerable(
        frontend: UnsafeMutableRawPointer, backend: UnsafeMutableRawPointer,
        capture: UnsafeMutableRawPointer?, control: UnsafeMutableRawPointer
    ) throws(ZeroMQError) {
        try require("zmq_proxy_steerable") { zmq_proxy_steerable(frontend, backend, capture, control) }
    }

    // MARK: Polling

    /// Polls `items` in place; returns how many are ready, 0 on timeout or interruption by a signal.
    static func poll(_ items: inout [zmq_pollitem_t], timeoutMilliseconds: Int) throws(ZeroMQError) -> Int {
        let count = Int32(items.count)
        let ready = try check("zmq_poll", onInterrupt: .returnNothing) {
            zmq_poll(&items, count, timeoutMilliseconds)
        }
        return Int(ready ?? 0)
    }
}
