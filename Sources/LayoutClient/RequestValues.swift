/// A rectangle in content coordinates, for rect queries and `return: {"rect":…}`.
public struct QueryRect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    var jsonValue: [String: Any] { ["x": x, "y": y, "width": width, "height": height] }
}

/// An item by section and index, for item queries and updates.
public struct ItemLocation: Sendable, Hashable {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    var jsonValue: [Int] { [section, item] }
}

/// Which attributes a `layout` or `prepare` reply carries (the request's `return`).
public enum ReturnedElements: Sendable, Hashable {
    /// No attributes (the wire's `"none"`, the default for `prepare`).
    case nothing
    /// Every element (the default for `layout`).
    case all
    /// The elements that overlap the rectangle.
    case inRect(QueryRect)

    var jsonValue: Any {
        switch self {
        case .nothing: "none"
        case .all: "all"
        case .inRect(let rect): ["rect": rect.jsonValue]
        }
    }
}

/// How a reply lists attributes (the request's `format`).
public enum ReplyFormat: String, Sendable, Hashable, CaseIterable {
    /// One object per element (the default).
    case objects
    /// One array per field: `{"kind":[…],"section":[…],…}`, far smaller for many elements.
    case columns
}

/// The supplementary elements a query can ask for by section.
public enum SupplementaryKind: String, Sendable, Hashable, CaseIterable {
    case header, footer, decoration
}
