import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a loopback port of its own to a target port, whose connections a test can reset at
/// will (`cut`) while it goes on accepting new ones: a network that drops connections and heals at once,
/// without root or network namespaces. Written by hand because it is a few dozen lines of POSIX sockets,
/// which no package on the mirror offers as a fault-injection tool.
public final class TCPRelay: Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    private let listener: Int32
    private let targetPort: Int
    private let connections = Mutex<[Pair]>([])
    private let stopped = Atomic<Bool>(false)
    /// While set, bytes are read and dropped: connections stay open and nothing passes (a blackhole).
    private let dropping = Atomic<Bool>(false)

    /// One relayed connection: the accepted socket and the one to the target.
    private final class Pair: Sendable {
        let client: Int32
        let server: Int32
        private let ended = Atomic<Bool>(false)
        private let pumps = Atomic<Int>(2)

        init(client: Int32, server: Int32) {
            self.client = client
            self.server = server
        }

        /// Both sockets end at once, as a dropped connection; the pumps blocked in read() on them wake.
        func end() {
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            for descriptor in [client, server] {
                // Closed with a reset (RST), not an orderly FIN, once the pumps are out.
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                _ = shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }

        /// A pump is out; the last one closes the descriptors (not before: a number closed under a pump
        /// still reading could be reused by another connection).
        func pumpFinished() {
            end()
            guard pumps.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
            _ = close(client)
            _ = close(server)
        }
    }

    /// Listens on a free loopback port and relays every connection to `127.0.0.1:targetPort`.
    public init(to targetPort: Int) throws {
        self.targetPort = targetPort
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RelayError("socket: \(String(cString: strerror(errno)))") }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw RelayError("bind/listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "tcp-relay-accept"
        thread.start()
    }

    deinit {
        stop()
    }

    /// `tcp://127.0.0.1:port`, for ZeroMQ.
    public var endpoint: String { "tcp://127.0.0.1:\(port)" }

    /// Ends every connection relayed now, with a reset; later connections are relayed as before.
    public func cut() {
        let pairs = connections.withLock { pairs in
            defer { pairs.removeAll() }
            return pairs
        }
        for pair in pairs { pair.end() }
    }

    /// Stops every byte from passing, on the connections relayed now and on new ones, which are still
    /// accepted: a link that blackholes (no reset, no answer) until `heal()`.
    public func blackhole() {
        dropping.store(true, ordering: .releasing)
    }

    /// Lets bytes pass again.
    public func heal() {
        dropping.store(false, ordering: .releasing)
    }

    /// How many connections are relayed now.
    public var connectionCount: Int { connections.withLock { $0.count } }

    /// Stops accepting and resets every connection.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = close(listener)
        cut()
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .acquiring) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard server >= 0, connected == 0 else {
                close(client)
                if server >= 0 { close(server) }
                continue
            }
            let pair = Pair(client: client, server: server)
            connections.withLock { $0.append(pair) }
            for (from, to) in [(client, server), (server, client)] {
                let pump = Thread { [self] in
                    Self.pump(from: from, to: to, dropping: dropping)
                    connections.withLock { $0.removeAll { $0 === pair } }
                    pair.pumpFinished()
                }
                pump.name = "tcp-relay-pump"
                pump.start()
            }
        }
    }

    private static func pump(from source: Int32, to destination: Int32, dropping: borrowing Atomic<Bool>) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            if dropping.load(ordering: .acquiring) { continue }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return write(destination, base + sent, count - sent)
                }
                guard written > 0 else { return }
                sent += written
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// A relay that could not start.
public struct RelayError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
