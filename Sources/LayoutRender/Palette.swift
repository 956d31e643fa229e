import LayoutEngine

/// The colours of the picture. Each kind has its own hue, light fill and darker outline, so that kinds
/// tell apart at a glance and neighbouring cells stay distinct where spacing is thin.
enum Palette {
    static let background = "#ffffff"
    static let canvasFill = "#f6f6f6"
    static let canvasStroke = "#c8c8c8"
    static let rectStroke = "#d62728"
    static let text = "#1f2d3d"

    static func fill(_ kind: ElementKind) -> String {
        switch kind {
        case .cell: return "#cfe2f7"
        case .header: return "#fbd7b0"
        case .footer: return "#cdeac6"
        case .decoration: return "#ebe4f6"
        }
    }

    static func stroke(_ kind: ElementKind) -> String {
        switch kind {
        case .cell: return "#3b78c2"
        case .header: return "#d9761c"
        case .footer: return "#3f9142"
        case .decoration: return "#a48fcb"
        }
    }
}
