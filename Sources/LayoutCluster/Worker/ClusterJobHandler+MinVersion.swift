import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LayoutServer
import LayoutWire

/// `minVersion` on a `query` the broker forwards (docs/PROTOCOL.md §11): the client has seen that
/// version of the key, and a reply from an older copy would take its reads back in time. The owner
/// answers `behind` (path `minVersion`), as its direct endpoint does, and the client retries.
extension ClusterJobHandler {
    /// The `minVersion` a broker-forwarded body carries; nil when it has none (the members are looked
    /// for only in a body that names the word, so that reads without it pay for one byte search).
    static func forwardedMinVersion(in body: RequestBody) -> Int? {
        body.withUnsafeBytes { bytes -> Int? in
            guard Self.mentionsMinVersion(bytes) else { return nil }
            guard let fields = try? DirectReadFields(scanning: bytes), let minVersion = fields.minVersion, minVersion > 0 else { return nil }
            return minVersion
        }
    }

    private static let minVersionMember: [UInt8] = Array("\"minVersion\"".utf8)

    /// Whether `bytes` hold `"minVersion"`: found by its capital V (`memchr`), rare in a request body.
    private static func mentionsMinVersion(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let member = minVersionMember
        // The V is the member's fifth byte: `"minV`.
        guard let base = bytes.baseAddress, bytes.count >= member.count else { return false }
        var offset = 4
        while offset + member.count - 4 <= bytes.count {
            guard let found = memchr(base + offset, Int32(UInt8(ascii: "V")), bytes.count - offset) else { return false }
            let at = base.distance(to: UnsafeRawPointer(found))
            if at + member.count - 4 <= bytes.count, zip(member.indices, member).allSatisfy({ bytes[at - 4 + $0] == $1 }) { return true }
            offset = at + 1
        }
        return false
    }

    /// `behind` when `request` is a query of a copy kept here at a version before `minVersion`; nil to
    /// run it (no copy here is answered by the query itself: `unknown_layout`).
    func behindReply(_ request: RequestHandler.Admitted, minVersion: Int?) -> JobReply? {
        guard let minVersion, case .query(let query) = request.request.operation else { return nil }
        // Another namespace is read by an admin only; anyone else's query of it is refused by the handler.
        guard query.namespace == nil || request.caller.isAdmin else { return nil }
        let key = LayoutKey(namespace: query.namespace ?? request.caller.namespace, name: query.layout)
        guard let copy = store.summary(forKey: key), copy.version < minVersion else { return nil }
        return DirectReadReplies.behind(
            id: request.request.id, "this worker's copy of \"\(query.layout)\" is at version \(copy.version), before minVersion \(minVersion); retry",
            copy: copy, op: request.request.operation.name.rawValue
        )
    }
}
