import Foundation
import LayoutTestKit
import ZeroMQ

/// Where a key is read directly, from a broker's `route` answer (PROTOCOL.md §11).
struct DirectRoute: Equatable {
    var worker: String
    var endpoint: String
    var epoch: UInt64
}

extension Client {
    /// The key's owner and epoch by the broker's route table; nil while the key has no settled owner
    /// with a direct endpoint.
    func directRoute(of key: String) throws -> DirectRoute? {
        let reply = try call(#"{"v":1,"id":"route","op":"route","layout":"\#(key)"}"#)
        guard let object = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
              let result = object["result"] as? [String: Any],
              let workers = result["workers"] as? [[String: Any]],
              let entry = (result["keys"] as? [[String: Any]])?.first,
              let owner = entry["worker"] as? String,
              let epoch = (entry["epoch"] as? NSNumber)?.uint64Value,
              let endpoint = workers.first(where: { $0["worker"] as? String == owner })?["direct"] as? String
        else { return nil }
        return DirectRoute(worker: owner, endpoint: endpoint, epoch: epoch)
    }

    /// Polls the route table until the key is settled at a worker whose direct endpoint answers a read of
    /// it (a worker answers `moved` until its first read lease arrives), other than `excluded`.
    static func waitForDirectRoute(
        of key: String, through front: Client, context: Context, query: (DirectRoute) -> [UInt8], excluding excluded: String? = nil,
        attempts: Int = 3_000
    ) throws -> DirectRoute {
        for _ in 0..<attempts {
            if let route = try front.directRoute(of: key), route.worker != excluded {
                let reader = try Client(endpoint: route.endpoint, context: context, timeoutMilliseconds: 2_000)
                defer { reader.close() }
                try reader.send(query(route))
                if let reply = try? reader.receive(), reply.isSuccess { return route }
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        throw BenchFailure("\(key) was never read directly")
    }
}
