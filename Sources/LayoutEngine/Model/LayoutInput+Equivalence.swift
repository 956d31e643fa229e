extension LayoutInput {
    /// Whether `other` gives the same layout and takes batches the same way: equal in every field, and
    /// item by item in sizing and identity. Unlike `==`, it does not look at how item sizing is stored:
    /// a column every item leaves unset equals no column at all (a batch can leave such a column behind,
    /// and a decoded body never has one).
    public func describesSameLayout(as other: LayoutInput) -> Bool {
        guard bounds == other.bounds, parameters == other.parameters, contentInsets == other.contentInsets,
              sectionBackgrounds == other.sectionBackgrounds, layoutDirection == other.layoutDirection,
              sections.count == other.sections.count else { return false }
        for (mine, theirs) in zip(sections, other.sections) {
            guard mine.items.count == theirs.items.count, mine.ids == theirs.ids, mine.headerHeight == theirs.headerHeight,
                  mine.footerHeight == theirs.footerHeight, mine.parameters == theirs.parameters else { return false }
            if mine.items == theirs.items { continue }
            for index in 0..<mine.items.count where mine.items[index] != theirs.items[index] { return false }
        }
        return true
    }
}
