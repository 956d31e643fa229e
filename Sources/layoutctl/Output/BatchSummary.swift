import LayoutClient

/// One line for a normalized batch (an `update` or `diff` result, or a `batch` event):
/// `-2 +1 moves 1 reloads 0 → content 375×19900`.
enum BatchSummary {
    static func changes(_ batch: AnyJSONObject) -> String {
        var text = counts(batch)
        if let sections = batch.object("sections"), hasChanges(sections) {
            text += ", sections \(counts(sections))"
        }
        return text + " → content \(Format.size(batch.size("contentSize")))"
    }

    /// The line for a `batch` event: `batch feed v4: …`.
    static func event(_ event: LayoutEvent) -> String {
        "batch \(event.layout ?? "?") v\(event.version.map(String.init) ?? "?"): \(changes(event.body))"
    }

    private static func counts(_ batch: AnyJSONObject) -> String {
        "-\(count(batch, "deletes")) +\(count(batch, "inserts")) moves \(count(batch, "moves")) reloads \(count(batch, "reloads"))"
    }

    private static func count(_ batch: AnyJSONObject, _ key: String) -> Int {
        batch.array(key)?.count ?? 0
    }

    private static func hasChanges(_ sections: AnyJSONObject) -> Bool {
        ["deletes", "inserts", "moves", "reloads"].contains { count(sections, $0) > 0 }
    }
}
