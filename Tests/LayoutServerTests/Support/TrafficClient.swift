import Foundation
import Synchronization
import ZeroMQ

/// Set once to stop traffic clients.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// One client of a traffic test, on a thread of its own with its own DEALER: mixed requests one at a
/// time on two keys of its own (changes, queries, pings, stateless layouts), remembering every change
/// acknowledged, so that a reference daemon can replay exactly those and the final layouts be compared.
final class TrafficClient: @unchecked Sendable {
    // @unchecked Sendable: the client's thread writes the results; the test reads them only after
    // `wait()`, whose semaphore orders the two.
    let index: Int
    let keys: [String]
    private(set) var acknowledged: [String: [String]] = [:]
    private(set) var lastVersion: [String: Int] = [:]
    private(set) var requests = 0
    private(set) var unavailable = 0
    /// Requests with no reply within the timeout, or more than one.
    private(set) var hangs = 0
    private(set) var extraReplies = 0
    private(set) var failures: [String] = []
    private let finished = DispatchSemaphore(value: 0)

    init(index: Int) {
        self.index = index
        keys = ["c\(index)-a", "c\(index)-b"]
    }

    static func prepareBody(_ key: String, id: String) -> String {
        #"{"v":1,"id":"\#(id)","op":"prepare","layout":"\#(key)","bounds":{"width":320,"height":600},"spec":{"type":"waterfall","columns":3},"sections":[{"count":40,"heights":[\#((0..<40).map { String(20 + ($0 * 7) % 31) }.joined(separator: ","))]}]}"#
    }

    static func queryBody(_ key: String, id: String) -> String {
        #"{"v":1,"id":"\#(id)","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1000,"height":1000000}}"#
    }

    func start(front: String, until stop: StopFlag) {
        let thread = Thread { [self] in
            run(front: front, stop: stop)
            finished.signal()
        }
        thread.start()
    }

    func wait() { finished.wait() }

    private func run(front: String, stop: StopFlag) {
        do {
            let context = try Context()
            defer { context.terminate() }
            let dealer = try Socket(.dealer, in: context)
            try dealer.set(.receiveTimeout, 15_000)
            try dealer.connect(front)
            defer { dealer.close() }
            for key in keys {
                _ = try send(Self.prepareBody(key, id: "c\(index)-p-\(key)"), key: key, changes: true, on: dealer)
            }
            var step = 0
            while !stop.isSet, hangs == 0 {
                let key = keys[step % 2]
                let id = "c\(index)-r\(step)"
                switch step % 6 {
                case 0:
                    _ = try send(#"{"v":1,"id":"\#(id)","op":"update","layout":"\#(key)","updates":[{"insert":[0,0],"item":{"height":\#(15 + step % 9)}}]}"#, key: key, changes: true, on: dealer)
                case 1:
                    _ = try send(Self.queryBody(key, id: id), key: key, changes: false, on: dealer)
                case 2:
                    _ = try send(#"{"v":1,"id":"\#(id)","op":"update","layout":"\#(key)","updates":[{"delete":[0,1]}]}"#, key: key, changes: true, on: dealer)
                case 3:
                    _ = try send(#"{"v":1,"id":"\#(id)","op":"ping"}"#, key: nil, changes: false, on: dealer)
                case 4:
                    _ = try send(#"{"v":1,"id":"\#(id)","op":"layout","bounds":{"width":320,"height":600},"spec":{"type":"mosaic"},"sections":[{"count":\#(10 + step % 7)}],"return":"none"}"#, key: nil, changes: false, on: dealer)
                default:
                    _ = try send(#"{"v":1,"id":"\#(id)","op":"bounds","layout":"\#(key)","bounds":{"width":\#(300 + step % 4 * 10),"height":600}}"#, key: key, changes: true, on: dealer)
                }
                step += 1
            }
            // Exactly one reply each: nothing else may arrive.
            try dealer.set(.receiveTimeout, 300)
            while try dealer.receiveMultipart() != nil { extraReplies += 1 }
        } catch {
            failures.append("client \(index): \(error)")
        }
    }

    /// Sends one request and waits for its reply; records what a change acknowledged.
    private func send(_ body: String, key: String?, changes: Bool, on dealer: Socket) throws -> [String: Any]? {
        requests += 1
        _ = try dealer.send(multipart: [[], Array(body.utf8)])
        guard let frames = try dealer.receiveMultipart() else {
            hangs += 1
            failures.append("client \(index): no reply to \(body.prefix(100))")
            return nil
        }
        let reply = try TestDaemon.object(frames[frames.count - 1])
        let sentID = (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["id"] as? String
        if reply["id"] as? String != sentID {
            failures.append("client \(index): reply \(reply["id"] ?? "nil") to request \(sentID ?? "nil")")
        }
        if reply.ok {
            if changes, let key {
                let result = reply.result
                // A bounds change of the same size changes nothing and is not replayed.
                if result["invalidated"] as? Bool != false { acknowledged[key, default: []].append(body) }
                if let version = result["version"] as? Int { lastVersion[key] = version }
            }
        } else if reply.errorCode == "unavailable", changes {
            unavailable += 1
        } else {
            failures.append("client \(index): \(reply.errorCode ?? "?") for \(body.prefix(100))")
        }
        return reply
    }
}
