import Foundation
import Logging
import Synchronization
import ZeroMQ

/// The daemon's ZAP handler (ZeroMQ RFC 27): libzmq asks it about every CURVE handshake on the daemon's
/// sockets, and it admits exactly the keys of the allow-list (the stats socket: only admin keys). It also
/// reads the daemon sockets' monitors for handshakes that fail before any ZAP request (a plain ZeroMQ
/// client, a client with a wrong server key), so that every refused handshake is counted and logged.
///
/// It owns its sockets (a ROUTER at `inproc://zeromq.zap.01`, a PAIR per monitor) on a thread of its own,
/// from binding to closing. The ROUTER must be bound before any CURVE socket of the context binds and
/// stay bound while they live: libzmq 4.3 admits *every* client that knows the server's public key when
/// no handler is bound. So `start` returns only once it is bound, and the thread closes it only when
/// the context is terminated, which happens after the I/O thread has closed the daemon's sockets.
package enum ZAPHandler {
    /// Where libzmq looks for a context's ZAP handler.
    static let endpoint = "inproc://zeromq.zap.01"

    /// Where the monitor of the daemon socket of ZAP `domain` reports (see `AccessGate.secure`).
    static func monitorEndpoint(_ domain: String) -> String {
        "inproc://layoutd-handshakes-\(domain)"
    }

    /// The domains whose sockets are monitored: the single daemon's.
    package static let domains = [ZAPDomain.front, ZAPDomain.events, ZAPDomain.stats]

    /// Binds the handler in `context` and serves it on a new thread until the context is terminated.
    /// Returns once it is bound.
    package static func start(context: Context, access: AccessControl, domains: [String] = domains, logger: Logger) throws(ServerError) {
        let bound = Handoff<Result<Void, ServerError>>()
        let thread = Thread {
            let zap: Socket
            var monitors: [(domain: String, socket: Socket)] = []
            do {
                zap = try Socket(.router, in: context)
                try zap.bind(endpoint)
                // inproc allows connecting before the monitored socket's monitor binds its end.
                for domain in domains {
                    let monitor = try Socket(.pair, in: context)
                    try monitor.connect(monitorEndpoint(domain))
                    monitors.append((domain, monitor))
                }
            } catch {
                bound.put(.failure(ServerError("cannot bind the ZAP handler at \(endpoint): \(error)")))
                return
            }
            bound.put(.success(()))
            Loop(zap: zap, monitors: monitors, access: access, logger: logger).run()
            zap.close()
            for monitor in monitors { monitor.socket.close() }
        }
        thread.name = "layoutd-zap"
        thread.start()
        try (bound.take() ?? .failure(ServerError("the ZAP thread reported nothing"))).get()
    }

    /// The thread's loop over its sockets.
    private struct Loop {
        let zap: Socket
        let monitors: [(domain: String, socket: Socket)]
        let access: AccessControl
        let logger: Logger

        /// Answers requests and reads monitors until the context is shut down.
        func run() {
            var poller = Poller()
            let zapToken = poller.register(zap)
            let monitorTokens = monitors.map { poller.register($0.socket) }
            while true {
                let ready: [Poller.Ready]
                do {
                    ready = try poller.poll(timeout: nil)
                } catch where error.code == .terminated {
                    return
                } catch {
                    // Never give up the endpoint while the daemon serves: without a handler, libzmq would
                    // admit anyone. A poll of healthy sockets does not fail otherwise; don't spin if it does.
                    logger.error("ZAP poll failed", metadata: ["error": "\(error)"])
                    Thread.sleep(forTimeInterval: 0.01)
                    continue
                }
                for item in ready {
                    if item.token == zapToken {
                        guard answerRequests() else { return }
                    } else if let index = monitorTokens.firstIndex(of: item.token) {
                        guard readMonitor(monitors[index]) else { return }
                    }
                }
            }
        }

        /// Answers every waiting ZAP request; false once the context is shut down.
        private func answerRequests() -> Bool {
            while true {
                let frames: [[UInt8]]
                do {
                    guard let received = try zap.receiveMultipart(flags: .dontWait) else { return true }
                    frames = received
                } catch {
                    return error.code != .terminated
                }
                // libzmq never sends a malformed request; one that is cannot be answered.
                guard let request = ZAPRequest(frames: frames) else { continue }
                let decision = access.decide(domain: request.domain, mechanism: request.mechanism, credentials: request.credentials)
                if case .refuse(let reason) = decision {
                    access.recordRefusal(reason, socket: request.domain, peerAddress: request.address, key: CurveKey(bytes: request.credentials)?.z85)
                }
                do {
                    _ = try zap.send(multipart: request.reply(decision), flags: .dontWait)
                } catch {
                    guard error.code != .terminated else { return false }
                    logger.warning("ZAP reply failed", metadata: ["error": "\(error)"])
                }
            }
        }

        /// Why a handshake failed, for the log; nil for an event that is not a failed handshake.
        ///
        /// A client without CURVE and the daemon both notice the mismatch, and whichever closes first
        /// makes the other see a broken connection: so a connection closed during the handshake counts
        /// too (as does, necessarily, a port scan).
        static func reason(_ event: MonitorEvent) -> String? {
            switch event.kind {
            case .handshakeFailedProtocol:
                switch MonitorEvent.ProtocolError(rawValue: event.value) {
                case .mechanismMismatch: return "handshake failed: the client does not speak CURVE"
                case .cryptographic: return "handshake failed: the client has a wrong server key"
                default: return "handshake failed: protocol error 0x\(String(event.value, radix: 16))"
                }
            case .handshakeFailedNoDetail:
                return "handshake failed: the connection closed during the handshake (errno \(event.value))"
            default:
                return nil
            }
        }

        /// Counts every failed handshake a monitor reports; false once the context is shut down.
        private func readMonitor(_ monitor: (domain: String, socket: Socket)) -> Bool {
            while true {
                let frames: [[UInt8]]
                do {
                    guard let received = try monitor.socket.receiveMultipart(flags: .dontWait) else { return true }
                    frames = received
                } catch {
                    return error.code != .terminated
                }
                guard let event = MonitorEvent(frames: frames), let reason = Self.reason(event) else { continue }
                // libzmq 4.3's monitor names the daemon's own endpoint here, not the peer's.
                access.recordRefusal(reason, socket: monitor.domain, peerAddress: nil, key: nil)
            }
        }
    }
}

/// A ZAP request as a ROUTER receives it: the routing envelope, then the frames of RFC 27.
struct ZAPRequest: Hashable {
    /// The routing id and the empty delimiter (libzmq's ZAP client frames its requests like REQ).
    var envelope: [[UInt8]]
    var requestID: [UInt8]
    var domain: String
    /// The peer's IP address.
    var address: String
    var mechanism: String
    /// For CURVE, the client's public key (32 bytes).
    var credentials: [UInt8]

    /// nil for anything that is not a version 1.0 request.
    init?(frames: [[UInt8]]) {
        guard let delimiter = frames.firstIndex(where: \.isEmpty) else { return nil }
        let body = frames[(delimiter + 1)...]
        // version, request id, domain, address, identity, mechanism, then the mechanism's credentials.
        guard body.count >= 6, body[body.startIndex] == Array("1.0".utf8) else { return nil }
        let field = { (offset: Int) in body[body.startIndex + offset] }
        envelope = Array(frames[...delimiter])
        requestID = field(1)
        domain = String(decoding: field(2), as: UTF8.self)
        address = String(decoding: field(3), as: UTF8.self)
        mechanism = String(decoding: field(5), as: UTF8.self)
        credentials = body.count > 6 ? field(6) : []
    }

    /// The reply frames: envelope, version, request id, status code and text, User-Id, no metadata.
    func reply(_ decision: ZAPDecision) -> [[UInt8]] {
        let status: (code: String, text: String, userID: String)
        switch decision {
        case .admit(let userID): status = ("200", "OK", userID)
        case .refuse(let reason): status = ("400", reason, "")
        }
        return envelope + [Array("1.0".utf8), requestID, Array(status.code.utf8), Array(status.text.utf8), Array(status.userID.utf8), []]
    }
}

/// One value handed from one thread to another that waits for it.
final class Handoff<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func put(_ newValue: Value) {
        value.withLock { $0 = newValue }
        ready.signal()
    }

    /// Waits for `put`; nil only if the value was taken already.
    func take() -> Value? {
        ready.wait()
        return value.withLock { $0.take() }
    }
}
