import LayoutEngine

/// Writes a layout input back as the body of a `prepare` (PROTOCOL.md §4, §5.3): what a cluster worker
/// answers when the broker asks for a snapshot of a kept layout, so that the key's recipe can start over
/// from it.
///
/// The body decodes (`RequestDecoder`) to an input equal to the one written, item by item
/// (`LayoutInput.describesSameLayout(as:)`): every parameter is written out, defaults included, so no
/// default of a future release changes what the body means; numbers in the shortest form that parses
/// back to the same double, a negative zero as `-0`; item sizing in the columns form, `null` where an item
/// leaves a field unset; a section's own parameters (stored merged over the spec) as `params` that set
/// every parameter. The one thing that does not come back as stored is a column no item sets (every value
/// unset, or every `spans` value false), which the decoder leaves out: the items are the same either way.
public enum PrepareBodyEncoder {
    /// `{"op":"prepare","layout":…,"bounds":…,"spec":…,…,"sections":[…]}`, without `v`, `id` or `return`
    /// (their defaults: version 1, `"id":null`, nothing returned).
    public static func body(layout: String, input: LayoutInput) -> JSONWriter {
        var writer = JSONWriter(capacity: 512 + input.itemCount * 8)
        writer.write(raw: #"{"op":"prepare","#)
        writer.write(key: "layout")
        writer.write(layout)
        writer.write(raw: ",")
        writer.write(key: "bounds")
        writeSize(input.bounds, into: &writer)
        writer.write(raw: ",")
        writer.write(key: "contentInsets")
        writeInsets(input.contentInsets, into: &writer)
        writer.write(raw: ",")
        writer.write(key: "decorations")
        writer.write(raw: #"{"sectionBackground":"#)
        writer.write(input.sectionBackgrounds)
        writer.write(raw: "},")
        writer.write(key: "layoutDirection")
        writer.write(input.layoutDirection.rawValue)
        writer.write(raw: ",")
        writer.write(key: "spec")
        writer.write(raw: "{")
        writer.write(key: "type")
        writer.write(input.parameters.kind.rawValue)
        writeParameters(input.parameters, into: &writer)
        writer.write(raw: "},")
        writer.write(key: "sections")
        writer.write(raw: "[")
        for (index, section) in input.sections.enumerated() {
            if index > 0 { writer.write(raw: ",") }
            writeSection(section, into: &writer)
        }
        writer.write(raw: "]}")
        return writer
    }

    // MARK: Sections

    private static func writeSection(_ section: Section, into writer: inout JSONWriter) {
        let items = section.items
        writer.write(raw: "{")
        writer.write(key: "count")
        writer.write(items.count)
        if let ids = section.ids {
            writer.write(raw: ",")
            writer.write(key: "ids")
            writer.write(raw: "[")
            for (index, id) in ids.enumerated() {
                if index > 0 { writer.write(raw: ",") }
                switch id {
                case .string(let text): writer.write(text)
                case .integer(let value): writer.write(value)
                }
            }
            writer.write(raw: "]")
        }
        writeColumn("heights", items.heights, into: &writer)
        writeColumn("aspectRatios", items.aspectRatios, into: &writer)
        writeColumn("widths", items.widths, into: &writer)
        if !items.spans.isEmpty {
            writer.write(raw: ",")
            writer.write(key: "spans")
            writer.write(raw: "[")
            for (index, span) in items.spans.enumerated() {
                if index > 0 { writer.write(raw: ",") }
                writer.write(span)
            }
            writer.write(raw: "]")
        }
        if let header = section.headerHeight {
            writer.write(raw: ",")
            writer.write(key: "header")
            writeNumber(header, into: &writer)
        }
        if let footer = section.footerHeight {
            writer.write(raw: ",")
            writer.write(key: "footer")
            writeNumber(footer, into: &writer)
        }
        if let parameters = section.parameters {
            writer.write(raw: ",")
            writer.write(key: "params")
            writer.write(raw: "{")
            writer.write(key: "type")
            writer.write(parameters.kind.rawValue)
            writeParameters(parameters, into: &writer)
            writer.write(raw: "}")
        }
        writer.write(raw: "}")
    }

    /// `,"name":[…]` for a column that is there (NaN, "not set", as null); nothing for an absent one.
    private static func writeColumn(_ name: StaticString, _ values: [Double], into writer: inout JSONWriter) {
        guard !values.isEmpty else { return }
        writer.write(raw: ",")
        writer.write(key: name)
        writer.reserve(values.count * 8 + 2)
        writer.write(raw: "[")
        for (index, value) in values.enumerated() {
            if index > 0 { writer.write(raw: ",") }
            if value.isNaN { writer.writeNull() } else { writeNumber(value, into: &writer) }
        }
        writer.write(raw: "]")
    }

    // MARK: Parameters

    /// Every parameter of the layout, each member preceded by a comma (they follow `"type"`).
    private static func writeParameters(_ parameters: LayoutParameters, into w: inout JSONWriter) {
        switch parameters {
        case .columnFlow(let p):
            member("minColumnWidth", number: p.minColumnWidth, &w)
            member("cellHeight", number: p.cellHeight, &w)
            member("margins", insets: p.margins, &w)
            member("interitemSpacing", number: p.interitemSpacing, &w)
            member("lineSpacing", number: p.lineSpacing, &w)
            member("header", number: p.headerHeight, &w)
            member("footer", number: p.footerHeight, &w)
        case .mosaic(let p):
            member("segmentHeight", number: p.segmentHeight, &w)
            member("spacing", number: p.spacing, &w)
            member("header", number: p.headerHeight, &w)
            member("footer", number: p.footerHeight, &w)
        case .waterfall(let p):
            member("columns", integer: p.columns, &w)
            member("cellPadding", number: p.cellPadding, &w)
            member("itemHeight", number: p.itemHeight, &w)
            member("columnWidth", number: p.columnWidth, &w)
            member("columnSpacing", number: p.columnSpacing, &w)
            member("interitemSpacing", number: p.interitemSpacing, &w)
            member("sectionInsets", insets: p.sectionInsets, &w)
            member("tieBreak", string: p.tieBreak.rawValue, &w)
            member("header", number: p.headerHeight, &w)
            member("footer", number: p.footerHeight, &w)
        case .list(let p):
            member("itemHeight", number: p.itemHeight, &w)
            member("spacing", number: p.spacing, &w)
            member("sectionInsets", insets: p.sectionInsets, &w)
            member("header", number: p.headerHeight, &w)
            member("footer", number: p.footerHeight, &w)
            member("insetSupplementaryViews", bool: p.insetSupplementaryViews, &w)
        case .columns(let p):
            member("columnCount", integer: p.columnCount, &w)
            member("columnSpacing", number: p.columnSpacing, &w)
            member("interitemSpacing", number: p.interitemSpacing, &w)
            member("itemHeight", number: p.itemHeight, &w)
            member("sectionInsets", insets: p.sectionInsets, &w)
            member("header", number: p.headerHeight, &w)
            member("footer", number: p.footerHeight, &w)
            member("insetSupplementaryViews", bool: p.insetSupplementaryViews, &w)
            member("placement", string: p.placement.rawValue, &w)
        case .flow(let p):
            member("interitemSpacing", number: p.interitemSpacing, &w)
            member("interspanSpacing", number: p.interspanSpacing, &w)
            member("spanGroupSpacingBefore", number: p.spanGroupSpacingBefore, &w)
            member("spanGroupSpacingAfter", number: p.spanGroupSpacingAfter, &w)
            w.write(raw: ",")
            w.write(key: "defaultItemSize")
            writeSize(p.defaultItemSize, into: &w)
            member("sectionInsets", insets: p.sectionInsets, &w)
            member("rowTransform", string: p.rowTransform.rawValue, &w)
            member("fillMaxScale", number: p.fillMaxScale, &w)
            member("header", number: p.headerHeight, &w)
            member("footer", number: p.footerHeight, &w)
        case .justified(let p):
            member("targetRowHeight", number: p.targetRowHeight, &w)
            member("targetRowHeightTolerance", number: p.targetRowHeightTolerance, &w)
            w.write(raw: ",")
            w.write(key: "boxSpacing")
            w.write(raw: "{")
            w.write(key: "horizontal")
            writeNumber(p.boxSpacing.horizontal, into: &w)
            w.write(raw: ",")
            w.write(key: "vertical")
            writeNumber(p.boxSpacing.vertical, into: &w)
            w.write(raw: "}")
            member("maxNumRows", integer: p.maxNumRows, &w)
            member("forceAspectRatio", number: p.forceAspectRatio, &w)
            member("showWidows", bool: p.showWidows, &w)
            member("fullWidthBreakoutRowCadence", integer: p.fullWidthBreakoutRowCadence, &w)
            member("widowLayoutStyle", string: p.widowLayoutStyle.rawValue, &w)
            member("sectionInsets", insets: p.sectionInsets, &w)
            member("header", number: p.headerHeight, &w)
            member("footer", number: p.footerHeight, &w)
        }
    }

    // Parameter members, each `,"name":value`; an optional that is nil is `null` (the decoder's "not set").

    private static func member(_ name: StaticString, number value: Double?, _ w: inout JSONWriter) {
        w.write(raw: ",")
        w.write(key: name)
        if let value { writeNumber(value, into: &w) } else { w.writeNull() }
    }

    private static func member(_ name: StaticString, integer value: Int?, _ w: inout JSONWriter) {
        w.write(raw: ",")
        w.write(key: name)
        if let value { w.write(value) } else { w.writeNull() }
    }

    private static func member(_ name: StaticString, bool value: Bool, _ w: inout JSONWriter) {
        w.write(raw: ",")
        w.write(key: name)
        w.write(value)
    }

    private static func member(_ name: StaticString, string value: String, _ w: inout JSONWriter) {
        w.write(raw: ",")
        w.write(key: name)
        w.write(value)
    }

    private static func member(_ name: StaticString, insets value: Insets, _ w: inout JSONWriter) {
        w.write(raw: ",")
        w.write(key: name)
        writeInsets(value, into: &w)
    }

    // MARK: Shapes and numbers

    private static func writeSize(_ size: Size, into writer: inout JSONWriter) {
        writer.write(raw: "{")
        writer.write(key: "width")
        writeNumber(size.width, into: &writer)
        writer.write(raw: ",")
        writer.write(key: "height")
        writeNumber(size.height, into: &writer)
        writer.write(raw: "}")
    }

    private static func writeInsets(_ insets: Insets, into writer: inout JSONWriter) {
        writer.write(raw: "{")
        writer.write(key: "top")
        writeNumber(insets.top, into: &writer)
        writer.write(raw: ",")
        writer.write(key: "left")
        writeNumber(insets.left, into: &writer)
        writer.write(raw: ",")
        writer.write(key: "bottom")
        writeNumber(insets.bottom, into: &writer)
        writer.write(raw: ",")
        writer.write(key: "right")
        writeNumber(insets.right, into: &writer)
        writer.write(raw: "}")
    }

    /// A number that parses back to exactly `value`: the reply writer's form, except that a negative
    /// zero stays negative (the decoder reads `-0` as -0.0, and an input keeps what it was given).
    private static func writeNumber(_ value: Double, into writer: inout JSONWriter) {
        if value == 0, value.sign == .minus {
            writer.write(raw: "-0")
        } else {
            writer.write(value)
        }
    }
}
