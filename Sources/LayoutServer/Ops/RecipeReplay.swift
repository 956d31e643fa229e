import Foundation
import LayoutEngine
import LayoutJournal
import LayoutWire

/// Rebuilds a layout from the bodies that made it, a `prepare` then its acknowledged changes: on a
/// private store, through the same handler code as live requests, so frames come out bit for bit as
/// they did (the engine is deterministic). What a cluster worker does with a RESTORE and a daemon with
/// its journal at a restart.
public struct RecipeReplay {
    /// The key being rebuilt; the bodies run as a caller of its namespace (only `prepare` and changes,
    /// which act in the caller's own namespace, are in a recipe, so whether that caller was an admin
    /// does not matter).
    public var key: LayoutKey
    /// The version the first body gave; body `i` gives `base + i`.
    public var base: Int
    public var limits: InputLimits
    public var stats: ServerStats

    public init(key: LayoutKey, base: Int, limits: InputLimits, stats: ServerStats) {
        self.key = key
        self.base = base
        self.limits = limits
        self.stats = stats
    }

    /// The layout the bodies give, which must be at `version`; a wire error says which body failed.
    public func rebuild(from bodies: [RequestBody], version: Int) -> Result<PreparedLayout, WireError> {
        let scratch = LayoutStore(capacityBytes: .max) { _ in }
        _ = scratch.restore(nil, forKey: key, version: base - 1)
        let replay = RequestHandler(store: scratch, stats: stats, limits: limits, startedAt: Date())
        for (index, body) in bodies.enumerated() {
            switch replay.decode(body) {
            case .reply(let reply):
                return .failure(WireError(.internal, "recipe entry \(index) does not decode: \(Self.excerpt(reply))"))
            case .run(let request, let requestKey):
                guard requestKey == key.schedulingKey else { return .failure(WireError(.internal, "recipe entry \(index) is for another key")) }
                let reply = replay.execute(request)
                if let code = reply.errorCode {
                    return .failure(WireError(WireError.Code(rawValue: code) ?? .internal, "recipe entry \(index) failed: \(Self.excerpt(reply))"))
                }
            }
        }
        guard let entry = scratch.entry(forKey: key) else { return .failure(WireError(.internal, "the recipe left no layout")) }
        guard entry.version == version else {
            return .failure(WireError(.internal, "the recipe reached version \(entry.version), not \(version)"))
        }
        return .success(entry.layout)
    }

    /// The bodies as a caller of the key's namespace sent them.
    /// A journal record that holds a body and its frames (`JournalBody`) gives the body with them attached.
    public func bodies(_ frames: some Sequence<[UInt8]>) -> [RequestBody] {
        let caller = Caller(namespace: key.namespace, isAdmin: false)
        return frames.map { frame in
            guard let parts = JournalBody.parts(of: frame), let body = parts.first else { return RequestBody(frame, caller: caller) }
            return RequestBody(body, caller: caller, attachments: parts.dropFirst().map { RequestBody($0) })
        }
    }

    private static func excerpt(_ reply: JobReply) -> String {
        String(decoding: reply.body.bytes.prefix(300), as: UTF8.self)
    }
}
