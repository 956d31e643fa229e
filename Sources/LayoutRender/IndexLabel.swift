import LayoutEngine

/// The index label of an element, drawn at its centre where it fits.
enum IndexLabel {
    static let fontSize = 10.0
    /// A glyph's advance in the common monospace fonts is 0.6 em; the label is drawn monospace so that
    /// this estimate of its width holds without measuring text.
    static let characterWidth = 6.0
    /// Room kept free on each side of the label.
    static let padding = 2.0
    /// How far below the centre the baseline goes so that digits look centred (0.35 em), without
    /// relying on `dominant-baseline`, which not every viewer supports.
    static let baselineOffset = 3.5

    /// `item` for a cell when every element drawn is of section 0, else `section.item`; `header s` and
    /// `footer s` for supplementary views; nil for decorations (they lie behind the rest).
    static func text(for element: LayoutElement, onlySectionZero: Bool) -> String? {
        switch element.kind {
        case .cell: return onlySectionZero ? "\(element.item)" : "\(element.section).\(element.item)"
        case .header: return "header \(element.section)"
        case .footer: return "footer \(element.section)"
        case .decoration: return nil
        }
    }

    /// Whether `text` fits in a shape of `width` × `height` px: its estimated width plus the padding on
    /// both sides, and the font size plus the padding on both sides.
    static func fits(_ text: String, width: Double, height: Double) -> Bool {
        width >= Double(text.count) * characterWidth + 2 * padding && height >= fontSize + 2 * padding
    }
}
