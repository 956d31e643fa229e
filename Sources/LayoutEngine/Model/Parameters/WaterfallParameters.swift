/// The Pinterest-style layout (LAYOUTS.md `waterfall`).
///
/// The defaults are the tutorial's layout; `columnWidth`, `columnSpacing`, `interitemSpacing`,
/// `sectionInsets` and `tieBreak` reproduce fixed-column variants such as seed 004's two columns.
public struct WaterfallParameters: Hashable, Sendable {
    /// Which column an item goes to when several are the shortest.
    public enum TieBreak: String, Hashable, Sendable, CaseIterable {
        /// The lowest-indexed of them (the tutorial's scan).
        case first
        /// The highest-indexed of them (seed 004's `if rightHeight > leftHeight` test).
        case last
    }

    public var columns: Int = 2
    public var cellPadding: Double = 6
    /// The content height of an item with no sizing.
    public var itemHeight: Double = 100
    /// A fixed width for every column; nil: the width inside the insets shared out between the columns.
    public var columnWidth: Double?
    /// Between adjacent columns.
    public var columnSpacing: Double = 0
    /// Between the slots of a column (below one, above the next); not after a column's last slot.
    public var interitemSpacing: Double = 0
    /// Around the section's columns, inside its header and footer.
    public var sectionInsets: Insets = .zero
    public var tieBreak: TieBreak = .first
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public init() {}
}
