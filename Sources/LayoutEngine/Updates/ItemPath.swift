/// The position of an item: its section and its index inside the section.
///
/// Named `ItemPath` rather than `IndexPath` so that code importing Foundation next to the engine
/// never has to disambiguate. Ordered section first, then item (the order of `NormalizedBatch`).
public struct ItemPath: Hashable, Sendable, Comparable {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (lhs: ItemPath, rhs: ItemPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }
}

extension ItemPath: CustomStringConvertible {
    /// `[section, item]`, as on the wire.
    public var description: String { "[\(section), \(item)]" }
}
