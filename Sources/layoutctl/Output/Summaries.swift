import LayoutClient

/// The readable lines layoutctl prints for each op's result.
enum Summaries {
    /// `ping`: who answered, how fast, and what it knows.
    static func ping(_ result: AnyJSONObject, endpoint: String, roundTrip: Duration) -> [String] {
        let version = result.string("version") ?? "?"
        let uptime = result.double("uptimeSeconds").map(Format.uptime) ?? "?"
        let layouts = (result.array("layouts") as? [String])?.joined(separator: ", ") ?? "?"
        return [
            "layoutd \(version) at \(endpoint): up \(uptime), replied in \(Format.milliseconds(roundTrip))",
            "layouts: \(layouts)",
        ]
    }

    /// `layout`: counts and content size, then the attributes.
    static func layout(_ result: AnyJSONObject) -> [String] {
        let counts = result.object("counts")
        let line = "layout: \(Format.number(counts, "sections")) sections, \(Format.number(counts, "items")) items, "
            + "\(Format.number(counts, "elements")) elements\(placement(counts)), content \(Format.size(result.size("contentSize")))"
        return [line] + AttributeTable.lines(result["attributes"])
    }

    /// `, 2 widows, 5 left out` for a justified layout (whose counts carry them); empty otherwise.
    static func placement(_ counts: AnyJSONObject?) -> String {
        guard let counts, counts.double("widowCount") != nil || counts.double("hiddenItems") != nil else { return "" }
        return ", \(Format.number(counts, "widowCount")) widows, \(Format.number(counts, "hiddenItems")) left out"
    }

    /// `prepare`: `prepared feed v3: 1000 items, content 375×20105`, then any attributes.
    static func prepare(_ result: AnyJSONObject, key: String) -> [String] {
        let counts = result.object("counts")
        let line = "prepared \(result.string("layout") ?? key) v\(Format.number(result, "version")): "
            + "\(Format.number(counts, "items")) items\(placement(counts)), content \(Format.size(result.size("contentSize")))"
        return [line] + AttributeTable.lines(result["attributes"])
    }

    /// `query`: `feed v3: 12 elements`, then the table.
    static func query(_ result: AnyJSONObject, key: String) -> [String] {
        let count = AttributeTable.count(result["attributes"]).map(String.init) ?? "?"
        let noun = count == "1" ? "element" : "elements"
        return ["\(key) v\(Format.number(result, "version")): \(count) \(noun)"] + AttributeTable.lines(result["attributes"])
    }

    /// `bounds`: whether the layout was invalidated, and its content size now.
    static func bounds(_ result: AnyJSONObject, key: String) -> [String] {
        let change = result.bool("invalidated") == true ? "invalidated" : "unchanged"
        return ["\(key) v\(Format.number(result, "version")): \(change), content \(Format.size(result.size("contentSize")))"]
    }

    /// `update` and `diff`: the normalized batch.
    static func batch(_ result: AnyJSONObject, verb: String, key: String) -> [String] {
        ["\(verb) \(result.string("layout") ?? key) v\(Format.number(result, "version")): \(BatchSummary.changes(result))"]
    }

    /// `drop`: `dropped feed v5`. The drop is itself a change, so the version is the one it raised the
    /// layout to (the one its `invalidated` event carries), not the last kept one.
    static func drop(_ result: AnyJSONObject, key: String) -> [String] {
        let version = result.double("version").map { " v\(Format.number($0))" } ?? ""
        return ["dropped \(result.string("layout") ?? key)\(version)"]
    }

    /// `list`: one row per kept layout and a total.
    static func list(_ result: AnyJSONObject) -> [String] {
        let layouts = result.objects("layouts") ?? []
        guard !layouts.isEmpty else { return ["no layouts"] }
        // An admin's list (CURVE) names each layout's namespace.
        let namespaced = layouts.contains { $0.string("namespace") != nil }
        var table = TextTable((namespaced ? [("namespace", .left)] : []) + [("layout", .left), ("version", .right), ("items", .right), ("memory", .right)])
        var totalBytes = 0.0
        for layout in layouts {
            let bytes = layout.double("bytes")
            totalBytes += bytes ?? 0
            table.append((namespaced ? [layout.string("namespace") ?? ""] : []) + [
                layout.string("layout") ?? "?", Format.number(layout, "version"), Format.number(layout, "items"),
                bytes.map(Format.bytes) ?? "?",
            ])
        }
        let noun = layouts.count == 1 ? "layout" : "layouts"
        return table.rendered() + ["\(layouts.count) \(noun), \(Format.bytes(totalBytes))"]
    }
}
