import Foundation

/// The items of a `layout` body, counted the way its sections give them (PROTOCOL.md 4.5: `count`, one
/// object per item, or columns), for the playground's cap. Runs on an HTTP thread, over a body already
/// bounded by `console.maxBodyBytes`; a body that is not JSON is left to the front, which answers it.
enum ConsoleItemCount {
    static let columns = ["ids", "heights", "aspectRatios", "widths", "spans"]

    /// The count and the path of the section that passes `limit`; nil when the body is within it.
    static func exceeding(_ limit: Int, in body: [UInt8]) -> (Int, String)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let sections = object["sections"] as? [Any] else { return nil }
        var total = 0
        for (index, section) in sections.enumerated() {
            guard let section = section as? [String: Any] else { continue }
            var count = (section["items"] as? [Any])?.count ?? 0
            if let declared = section["count"] as? Double, declared.isFinite {
                count = max(count, Int(min(max(declared, 0), 1e15)))
            }
            for column in columns {
                count = max(count, (section[column] as? [Any])?.count ?? 0)
            }
            total += count
            if total > limit { return (total, "sections[\(index)]") }
        }
        return nil
    }
}
