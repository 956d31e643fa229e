import Foundation
import Synchronization
import Testing
import ZeroMQ
@testable import LayoutClient

/// `LayoutClient` with several front endpoints (the ZeroMQ guide's Binary Star client): a timeout or a
/// standby's answer moves it to the next endpoint, and only requests that are safe to repeat are sent
/// again there.
@Suite("LayoutClient failover")
struct ClientFailoverTests {
    private static var job: [String: Any] {
        ["bounds": ["width": 375, "height": 800], "spec": ["type": "mosaic"], "sections": [["count": 10]]]
    }
    private static var deleteFirst: [[String: Any]] { [["delete": [0, 0]]] }
    private static let firstItem = [ItemLocation(section: 0, item: 0)]
    /// Long enough for a loaded machine's daemon to answer a small request, short enough that the
    /// endpoints that never answer do not slow the suite down much.
    private static let shortTimeout = Duration.seconds(1)

    // MARK: Moving on

    @Test("A standby's answer moves the client to the daemon, which answers this request and the next ones")
    func standbyThenDaemon() throws {
        let daemon = try TestDaemon()
        let front = daemon.running.frontEndpoint
        let standby = try FakeBroker(.standby)
        let client = try LayoutClient(endpoints: [standby.endpoint, front], timeout: .seconds(10))

        #expect(try client.ping().ok)
        #expect(client.endpoint == front)
        // The client stays where the answer came from: even a change without ifVersion goes there first.
        #expect(try client.prepare(key: "feed", job: Self.job).ok)
        #expect(try client.query(key: "feed", items: Self.firstItem).ok)
        #expect(standby.receivedOps == ["ping"])
    }

    @Test("An endpoint nothing listens on times out, and the next one answers")
    func deadThenDaemon() throws {
        let daemon = try TestDaemon()
        let front = daemon.running.frontEndpoint
        let dead = "tcp://127.0.0.1:\(try freePort())"
        let client = try LayoutClient(endpoints: [dead, front], timeout: Self.shortTimeout)

        // Bounded by the client itself: two rounds of one timeout per endpoint at most.
        #expect(try client.ping().ok)
        #expect(client.endpoint == front)
    }

    // MARK: What is sent again

    @Test("A change without ifVersion is not sent again after a timeout: the caller learns its outcome is unknown")
    func changeWithoutIfVersionIsNotResent() throws {
        let daemon = try TestDaemon()
        let front = daemon.running.frontEndpoint
        let version = try prepareFeed(at: front)
        let silent = try FakeBroker(.silent)
        let client = try LayoutClient(endpoints: [silent.endpoint, front], timeout: Self.shortTimeout)

        let lost = ClientError.outcomeUnknown(op: "update", cause: .timeout(endpoint: silent.endpoint, after: Self.shortTimeout))
        #expect(throws: lost) { try client.update(key: "feed", updates: Self.deleteFirst) }
        #expect(eventually { silent.receivedOps == ["update"] })
        // Moved on all the same, and the daemon never saw the update.
        #expect(client.endpoint == front)
        #expect(try currentVersion(of: "feed", at: front) == version)
    }

    @Test("A change with ifVersion is sent again after a timeout, and applied once")
    func changeWithIfVersionIsResent() throws {
        let daemon = try TestDaemon()
        let front = daemon.running.frontEndpoint
        let version = try prepareFeed(at: front)
        let silent = try FakeBroker(.silent)
        let client = try LayoutClient(endpoints: [silent.endpoint, front], timeout: Self.shortTimeout)

        let reply = try client.update(key: "feed", updates: Self.deleteFirst, ifVersion: version)
        #expect(reply.ok)
        #expect(reply.result.int("version") == version + 1)
        #expect(eventually { silent.receivedOps == ["update"] })
        #expect(try currentVersion(of: "feed", at: front) == version + 1)
    }

    @Test("A query is sent again after a timeout")
    func queryIsResent() throws {
        let daemon = try TestDaemon()
        let front = daemon.running.frontEndpoint
        let version = try prepareFeed(at: front)
        let silent = try FakeBroker(.silent)
        // Routing off: the query itself goes to the front (with it on, `route` goes first: below).
        let client = try LayoutClient(endpoints: [silent.endpoint, front], timeout: Self.shortTimeout, directReads: .off)

        let reply = try client.query(key: "feed", items: Self.firstItem)
        #expect(reply.ok)
        #expect(reply.result.int("version") == version)
        #expect(eventually { silent.receivedOps == ["query"] })
    }

    @Test("With direct reads, the first query's `route` is sent again after a timeout, then the query")
    func routeIsResent() throws {
        let daemon = try TestDaemon()
        let front = daemon.running.frontEndpoint
        let version = try prepareFeed(at: front)
        let silent = try FakeBroker(.silent)
        let client = try LayoutClient(endpoints: [silent.endpoint, front], timeout: Self.shortTimeout)

        let reply = try client.query(key: "feed", items: Self.firstItem)
        #expect(reply.ok)
        #expect(reply.result.int("version") == version)
        #expect(eventually { silent.receivedOps == ["route"] })
        #expect(client.endpoint == front)
    }

    @Test("A standby applied nothing: a change it answered goes on to the daemon, ifVersion or not")
    func changesAnsweredByAStandby() throws {
        let daemon = try TestDaemon()
        let front = daemon.running.frontEndpoint
        let version = try prepareFeed(at: front)
        let standby = try FakeBroker(.standby)

        // A standby applied nothing: even a change without ifVersion goes on to the next endpoint, once.
        let client = try LayoutClient(endpoints: [standby.endpoint, front], timeout: .seconds(10))
        let reply = try client.bounds(key: "feed", width: 320, height: 600)
        #expect(reply.ok)
        #expect(reply.result.int("version") == version + 1)
        #expect(client.endpoint == front)
        #expect(try currentVersion(of: "feed", at: front) == version + 1)
        #expect(standby.receivedOps == ["bounds"])
    }

    // MARK: Giving up

    @Test("Only standbys: every endpoint is tried for the policy's rounds, then allEndpointsFailed")
    func standbysEverywhere() throws {
        let first = try FakeBroker(.standby)
        let second = try FakeBroker(.standby)
        let client = try LayoutClient(
            endpoints: [first.endpoint, second.endpoint], timeout: .seconds(10),
            failover: FailoverPolicy(rounds: 3, backoff: .milliseconds(10))
        )

        let failures: [EndpointFailure] = [
            .standby(endpoint: first.endpoint, message: FakeBroker.standbyMessage),
            .standby(endpoint: second.endpoint, message: FakeBroker.standbyMessage),
        ]
        let exhausted = ClientError.allEndpointsFailed(rounds: 3, failures: failures)
        #expect(throws: exhausted) { try client.ping() }
        #expect(exhausted.code == "all_endpoints_failed")
        #expect(exhausted.message.contains("every endpoint was tried"))
        #expect(first.receivedOps == ["ping", "ping", "ping"])
        #expect(second.receivedOps == ["ping", "ping", "ping"])
    }

    @Test("A single endpoint does not fail over: a standby's answer is the reply")
    func singleEndpoint() throws {
        let standby = try FakeBroker(.standby)
        let client = try LayoutClient(endpoints: [standby.endpoint], timeout: .seconds(10))
        let reply = try client.ping()
        #expect(reply.error?.code == .unavailable)
        #expect(reply.error?.message == FakeBroker.standbyMessage)
    }

    @Test("An empty list, or an empty endpoint in it, is refused")
    func emptyEndpoints() {
        #expect(throws: ClientError.invalidInput("no front endpoint: give at least one")) { try LayoutClient(endpoints: []) }
        let emptyEndpoint = #expect(throws: ClientError.self) { try LayoutClient(endpoints: ["tcp://127.0.0.1:5555", ""]) }
        #expect(emptyEndpoint?.code == "invalid_input")
    }

    // MARK: The rules, body by body

    @Test("Read-only ops may be resent, changes only with an ifVersion, anything else never", arguments: [
        (#"{"v":1,"id":1,"op":"ping"}"#, true),
        (#"{"op":"layout","bounds":{"width":1,"height":1}}"#, true),
        (#"{"op":"query","layout":"k","rect":{"x":0,"y":0,"width":1,"height":1}}"#, true),
        (#"{"op":"list"}"#, true),
        (#"{"op":"prepare","layout":"k","ifVersion":0}"#, true),
        (#"{"op":"update","layout":"k","updates":[],"ifVersion":4}"#, true),
        (#"{"op":"update","layout":"k","updates":[{"ifVersion":4}]}"#, false),
        (#"{"op":"diff","layout":"k","sections":[]}"#, false),
        (#"{"op":"drop","layout":"k","ifVersion":null}"#, false),
        (#"{"op":"bounds","layout":"k"}"#, false),
        (#"{"op":"compact"}"#, false),
        (#"{"layout":"k"}"#, false),
        ("not json", false),
    ])
    func resendRule(body: String, resendable: Bool) {
        #expect(ResendRule.allowsResending(Array(body.utf8)) == resendable)
    }

    @Test("A standby is told from the other unavailable answers by its message", arguments: [
        (#"{"v":1,"id":3,"ok":false,"error":{"code":"unavailable","message":"this broker is a STANDBY"}}"#, true),
        (#"{"v":1,"id":3,"ok":false,"error":{"code":"unavailable","message":"no worker is serving"}}"#, false),
        (#"{"v":1,"id":3,"ok":false,"error":{"code":"busy","message":"standby for a moment"}}"#, false),
        (#"{"v":1,"id":3,"ok":true,"result":{"message":"standby"}}"#, false),
    ])
    func standbyAnswers(reply: String, isStandby: Bool) {
        #expect((StandbyReply.message(in: Array(reply.utf8)) != nil) == isStandby)
    }

    // MARK: Helpers

    /// Prepares `feed` on the daemon at `front`; its version.
    private func prepareFeed(at front: String) throws -> Int {
        let client = try LayoutClient(endpoint: front, timeout: .seconds(10))
        return try #require(try client.prepare(key: "feed", job: Self.job).get().int("version"))
    }

    /// The version of `key` at `front`, asked directly.
    private func currentVersion(of key: String, at front: String) throws -> Int? {
        let client = try LayoutClient(endpoint: front, timeout: .seconds(10))
        return try client.query(key: key, items: Self.firstItem).get().int("version")
    }

    /// Whether `condition` holds within a generous bound, polled.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }
}

/// A ROUTER on a free loopback port standing in for a broker that does not serve: a standby, which
/// answers every request `unavailable` as a standby broker does, or a silent one, which answers nothing
/// (a broker that hangs). Its socket lives and dies on a thread of its own.
private final class FakeBroker {
    enum Manner: Sendable { case standby, silent }

    static let standbyMessage = "this broker is a standby; ask its peer"

    let endpoint: String
    private let state = State()

    /// The ops of the requests received so far, in order.
    var receivedOps: [String] { state.ops.withLock { $0 } }

    init(_ manner: Manner) throws {
        let state = self.state
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { state.finished.signal() }
            do {
                let context = try Context()
                defer { context.terminate() }
                let router = try Socket(.router, in: context)
                defer { router.close() }
                // The loop wakes this often to see whether the test is done with it.
                try router.set(.receiveTimeout, 20)
                try router.bind("tcp://127.0.0.1:*")
                let endpoint = try router.lastEndpoint
                state.bound.withLock { $0 = .success(endpoint) }
                ready.signal()
                while !state.stop.isSet {
                    guard let frames = try router.receiveMultipart() else { continue }
                    try Self.serve(frames, manner: manner, on: router, state: state)
                }
            } catch {
                state.bound.withLock { $0 = $0 ?? .failure(error) }
                ready.signal()
            }
        }
        thread.start()
        guard ready.wait(timeout: .now() + 10) == .success, let bound = state.bound.withLock({ $0 }) else {
            state.stop.set()
            throw TestFailure("the fake broker did not bind")
        }
        endpoint = try bound.get()
    }

    deinit {
        state.stop.set()
        _ = state.finished.wait(timeout: .now() + 10)
    }

    private static func serve(_ frames: [[UInt8]], manner: Manner, on router: Socket, state: State) throws {
        // [routing id, empty delimiter, body] from a DEALER that frames as REQ does.
        guard frames.count == 3, let request = try? TestDaemon.object(frames[2]) else { return }
        state.ops.withLock { $0.append(request["op"] as? String ?? "?") }
        guard manner == .standby else { return }
        let reply: [String: Any] = [
            "v": 1, "id": request["id"] ?? NSNull(), "ok": false,
            "error": ["code": "unavailable", "message": standbyMessage],
        ]
        _ = try router.send(multipart: [frames[0], [], Array(try JSONSerialization.data(withJSONObject: reply))])
    }

    /// What the broker's thread and the test share.
    private final class State: Sendable {
        let ops = Mutex<[String]>([])
        let bound = Mutex<Result<String, any Error>?>(nil)
        let stop = StopFlag()
        let finished = DispatchSemaphore(value: 0)
    }
}
