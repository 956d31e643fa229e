import Testing
import ZeroMQ

/// Bound for every blocking call in the tests, so a broken socket fails a test instead of hanging it.
let testTimeoutMilliseconds: Int32 = 5_000

/// A socket whose blocking receives and sends give up after `testTimeoutMilliseconds`.
func makeSocket(_ type: SocketType, in context: Context) throws -> Socket {
    let socket = try Socket(type, in: context)
    try socket.set(.receiveTimeout, testTimeoutMilliseconds)
    try socket.set(.sendTimeout, testTimeoutMilliseconds)
    return socket
}

/// The three transports the module is used with.
enum Transport: String, CaseIterable, CustomTestStringConvertible {
    case inproc, ipc, tcp

    /// A fresh endpoint to bind; tcp uses a wildcard port, read back from `lastEndpoint`.
    func bindableEndpoint() -> String {
        let unique = UInt64.random(in: 0 ... .max)
        return switch self {
        case .inproc: "inproc://zmq-test-\(unique)"
        case .ipc: "ipc:///tmp/layoutd-zmq-test-\(unique)"
        case .tcp: "tcp://127.0.0.1:*"
        }
    }

    var testDescription: String { rawValue }
}

/// Binds `server` on a fresh endpoint of `transport` and connects `client` to the address actually bound.
func link(_ server: Socket, _ client: Socket, over transport: Transport) throws {
    try server.bind(transport.bindableEndpoint())
    try client.connect(server.lastEndpoint)
}

func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

/// `#require` for noncopyable results: records an issue and stops the test when nothing arrived.
func required<Value: ~Copyable>(
    _ value: consuming Value?, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Value {
    switch consume value {
    case .some(let value):
        return value
    case .none:
        Issue.record("expected a value, got nil (timed out?)", sourceLocation: sourceLocation)
        throw MissingValue()
    }
}

struct MissingValue: Error {}
