import LayoutEngine

extension LayoutPicture {
    /// The picture as an SVG document.
    ///
    /// Above a `margin` of 8 px: the title and a legend line when `style.showsLegend`; below them the
    /// canvas, a grey rectangle standing for the extent, `style.width` px wide. The document is as wide
    /// as the canvas, or as the legend's text where that is wider, plus the margins. Every element is one
    /// `<rect>` inside the group of its kind (`<g class="decoration">`, `"cell"`, `"header"`,
    /// `"footer"`, drawn in that order so decorations stay behind), at
    /// `canvas origin + (frame origin - extent origin) × scale` and `frame size × scale`, with
    /// `scale = style.width / extent.width` (1 for an empty extent); coordinates are rounded to
    /// hundredths of a px. Labels (`<g class="labels">`) follow, then the rect as a dashed
    /// `<rect class="rect">`.
    public func svg(style: PictureStyle = PictureStyle()) -> String {
        var writer = SVGWriter(picture: self, style: style)
        writer.write()
        return writer.output
    }
}

/// Builds the SVG text of one picture.
private struct SVGWriter {
    static let margin = 8.0
    static let lineHeight = 18.0
    /// 0.6 em per monospace glyph: 12 px for the title, 11 px for the legend.
    static let titleCharacterWidth = 7.2
    static let legendCharacterWidth = 6.6

    let picture: LayoutPicture
    let style: PictureStyle
    let scale: Double
    let originX: Double
    let originY: Double
    let pictureWidth: Double
    let pictureHeight: Double
    /// The legend's swatches (their paint attributes) and texts.
    var legendEntries: [(swatch: String, text: String)] = []
    var output = ""

    init(picture: LayoutPicture, style: PictureStyle) {
        self.picture = picture
        self.style = style
        let width = style.drawingWidth
        scale = picture.extent.width > 0 ? width / picture.extent.width : 1
        var top = Self.margin
        var legendWidth = 0.0
        if style.showsLegend {
            top += Self.lineHeight * (picture.title == nil ? 1 : 2) + 4
            legendEntries = Self.legendEntries(of: picture)
            let titleWidth = Double(picture.title?.count ?? 0) * Self.titleCharacterWidth
            // The last entry needs no gap after it.
            let entriesWidth = legendEntries.reduce(0) { $0 + Self.legendEntryWidth($1.text) } - (legendEntries.isEmpty ? 0 : 14)
            legendWidth = max(titleWidth, entriesWidth)
        }
        originX = Self.margin
        originY = top
        // Wide enough for the legend, so that a narrow picture does not cut its text off.
        pictureWidth = max(width, legendWidth) + 2 * Self.margin
        pictureHeight = top + picture.extent.height * scale + Self.margin
    }

    mutating func write() {
        output.reserveCapacity(1_024 + picture.elements.count * 72)
        let size = "width=\"\(n(pictureWidth))\" height=\"\(n(pictureHeight))\""
        line("<svg xmlns=\"http://www.w3.org/2000/svg\" \(size) viewBox=\"0 0 \(n(pictureWidth)) \(n(pictureHeight))\" font-family=\"monospace\">")
        if let title = picture.title { line("<title>\(SVGText.escaped(title))</title>") }
        line("<rect class=\"background\" x=\"0\" y=\"0\" \(size) fill=\"\(Palette.background)\"/>")
        if style.showsLegend { writeLegend() }
        let canvas = "x=\"\(n(originX))\" y=\"\(n(originY))\" width=\"\(n(picture.extent.width * scale))\" height=\"\(n(picture.extent.height * scale))\""
        line("<rect class=\"canvas\" \(canvas) fill=\"\(Palette.canvasFill)\" stroke=\"\(Palette.canvasStroke)\"/>")
        for kind in [ElementKind.decoration, .cell, .header, .footer] { writeShapes(of: kind) }
        if style.showsLabels { writeLabels() }
        if let rect = picture.rect {
            line("<rect class=\"rect\" \(attributes(for: rect)) fill=\"none\" stroke=\"\(Palette.rectStroke)\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>")
        }
        line("</svg>")
    }

    /// A swatch and a count per kind drawn, in the order of `ElementKind`, then the rect.
    private static func legendEntries(of picture: LayoutPicture) -> [(swatch: String, text: String)] {
        var counts: [ElementKind: Int] = [:]
        for element in picture.elements { counts[element.kind, default: 0] += 1 }
        var entries: [(swatch: String, text: String)] = []
        for kind in ElementKind.allCases {
            guard let count = counts[kind] else { continue }
            entries.append(("fill=\"\(Palette.fill(kind))\" stroke=\"\(Palette.stroke(kind))\"", "\(kind.name) \(count)"))
        }
        if let rect = picture.rect {
            let numbers = [rect.x, rect.y, rect.width, rect.height].map(SVGText.number).joined(separator: ",")
            let swatch = "fill=\"none\" stroke=\"\(Palette.rectStroke)\" stroke-width=\"2\" stroke-dasharray=\"3 2\""
            entries.append((swatch, "rect \(numbers)"))
        }
        return entries
    }

    /// A swatch, a gap, the text, and the gap before the next entry.
    private static func legendEntryWidth(_ text: String) -> Double {
        16 + Double(text.count) * legendCharacterWidth + 14
    }

    private mutating func writeLegend() {
        line("<g class=\"legend\" font-size=\"11\" fill=\"\(Palette.text)\">")
        var top = Self.margin
        if let title = picture.title {
            line("<text x=\"\(n(Self.margin))\" y=\"\(n(top + 13))\" font-size=\"12\">\(SVGText.escaped(title))</text>")
            top += Self.lineHeight
        }
        var x = Self.margin
        for (swatch, text) in legendEntries {
            line("<rect class=\"swatch\" x=\"\(n(x))\" y=\"\(n(top + 3))\" width=\"12\" height=\"12\" \(swatch)/>")
            line("<text x=\"\(n(x + 16))\" y=\"\(n(top + 13))\">\(SVGText.escaped(text))</text>")
            x += Self.legendEntryWidth(text)
        }
        line("</g>")
    }

    private mutating func writeShapes(of kind: ElementKind) {
        var opened = false
        for element in picture.elements where element.kind == kind {
            if !opened {
                line("<g class=\"\(kind.name)\" fill=\"\(Palette.fill(kind))\" stroke=\"\(Palette.stroke(kind))\">")
                opened = true
            }
            line("<rect \(attributes(for: element.frame))/>")
        }
        if opened { line("</g>") }
    }

    private mutating func writeLabels() {
        let onlySectionZero = picture.elements.allSatisfy { $0.section == 0 }
        var opened = false
        for element in picture.elements {
            guard let text = IndexLabel.text(for: element, onlySectionZero: onlySectionZero) else { continue }
            let width = element.frame.width * scale
            let height = element.frame.height * scale
            guard IndexLabel.fits(text, width: width, height: height) else { continue }
            if !opened {
                line("<g class=\"labels\" font-size=\"\(n(IndexLabel.fontSize))\" text-anchor=\"middle\" fill=\"\(Palette.text)\">")
                opened = true
            }
            let centreX = x(element.frame.minX) + width / 2
            let centreY = y(element.frame.minY) + height / 2
            line("<text x=\"\(n(centreX))\" y=\"\(n(centreY + IndexLabel.baselineOffset))\">\(text)</text>")
        }
        if opened { line("</g>") }
    }

    private func x(_ contentX: Double) -> Double { originX + (contentX - picture.extent.minX) * scale }
    private func y(_ contentY: Double) -> Double { originY + (contentY - picture.extent.minY) * scale }

    private func attributes(for frame: Rect) -> String {
        "x=\"\(n(x(frame.minX)))\" y=\"\(n(y(frame.minY)))\" width=\"\(n(frame.width * scale))\" height=\"\(n(frame.height * scale))\""
    }

    private func n(_ value: Double) -> String { SVGText.number(value) }

    private mutating func line(_ text: String) {
        output += text
        output += "\n"
    }
}
