import LayoutClient

/// The `attributes` of a reply as a table of kind, section, item and frame, in either wire format.
enum AttributeTable {
    private static let fields = ["kind", "section", "item", "x", "y", "width", "height"]

    /// The number of elements `attributes` lists, or `nil` if it is in neither format.
    static func count(_ attributes: Any?) -> Int? {
        if let objects = attributes as? [Any] { return objects.count }
        if let columns = attributes as? [String: Any] { return (columns["kind"] as? [Any])?.count }
        return nil
    }

    /// Table lines for `attributes`: an array of objects (`"format":"objects"`) or an object of arrays
    /// (`"format":"columns"`). Empty when there is nothing to show.
    static func lines(_ attributes: Any?) -> [String] {
        var table = TextTable([
            ("kind", .left), ("section", .right), ("item", .right),
            ("x", .right), ("y", .right), ("w", .right), ("h", .right),
        ])
        if let objects = attributes as? [Any] {
            for case let object as [String: Any] in objects {
                table.append(row(AnyJSONObject(object)))
            }
        } else if let columns = attributes as? [String: Any] {
            let arrays = fields.map { columns[$0] as? [Any] ?? [] }
            let count = arrays.map(\.count).max() ?? 0
            for index in 0..<count {
                var element = AnyJSONObject()
                for (field, array) in zip(fields, arrays) where index < array.count {
                    element[field] = array[index]
                }
                table.append(row(element))
            }
        }
        return table.rows.isEmpty ? [] : table.rendered()
    }

    private static func row(_ element: AnyJSONObject) -> [String] {
        var kind = element.string("kind") ?? "?"
        // Every decoration is a section background today, and the columns format leaves the name out;
        // name only another kind, so both formats print the same table.
        if let elementKind = element.string("elementKind"), elementKind != "sectionBackground" {
            kind += " (\(elementKind))"
        }
        return [kind] + fields.dropFirst().map { Format.number(element, $0) }
    }
}
