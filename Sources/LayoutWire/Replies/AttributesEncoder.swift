import LayoutEngine

/// The elements of a prepared layout that a reply lists, and how it lays them out.
public struct Attributes: Sendable {
    public var layout: PreparedLayout
    public var selection: AttributeSelection
    public var format: AttributesFormat
    /// With a rect selection: the headers and footers pinned to its edges, which carry `"zIndex":1`.
    public var pinning: Pinning
    /// With a rect selection: the scroll that displaces the cells.
    public var dynamics: ScrollDynamics?
    /// With the binary format: the columns, made when the attributes are, which the reply sends as
    /// frames after its JSON header (whose description of them needs their count).
    public private(set) var binaryColumns: BinaryColumns?

    public init(layout: PreparedLayout, selection: AttributeSelection, format: AttributesFormat, pinning: Pinning = .none, dynamics: ScrollDynamics? = nil) {
        self.layout = layout
        self.selection = selection
        self.format = format
        self.pinning = pinning
        self.dynamics = dynamics
        binaryColumns = nil
        if format == .binary { binaryColumns = BinaryColumns(self) }
    }

    /// Writes the attributes value: an array of objects, an object of arrays, or (binary) the
    /// description of the frames that carry them.
    public func encode(into writer: inout JSONWriter) {
        switch format {
        case .objects: encodeObjects(into: &writer)
        case .columns: encodeColumns(into: &writer)
        case .binary: (binaryColumns ?? BinaryColumns(self)).encodeDescription(into: &writer)
        }
    }

    /// A generous guess at the encoded size, so the writer rarely grows.
    var estimatedByteCount: Int {
        switch selection {
        case _ where format == .binary: return 512
        case .all: return 64 + layout.elementCount * (format == .objects ? 96 : 48)
        case .items(let paths): return 64 + paths.count * (format == .objects ? 96 : 48)
        // Usually a screenful of elements. Kept under 1 KB with the reply's head, so the writer's
        // buffer comes from malloc's per-thread cache rather than its shared heap: a query is the
        // most frequent small request. A larger reply grows the buffer.
        case .rect, .supplementary: return 768
        }
    }

    /// `[{"kind":"cell","section":0,"item":3,"x":…,"y":…,"width":…,"height":…}, …]`; decorations also
    /// carry `"elementKind":"sectionBackground","zIndex":-1`, pinned headers and footers `"zIndex":1`.
    private func encodeObjects(into writer: inout JSONWriter) {
        writer.write(byte: UInt8(ascii: "["))
        var first = true
        forEachFrame { kind, section, item, x, y, width, height in
            if !first { writer.write(byte: UInt8(ascii: ",")) }
            first = false
            switch kind {
            case .cell: writer.write(raw: "{\"kind\":\"cell\",\"section\":")
            case .header: writer.write(raw: "{\"kind\":\"header\",\"section\":")
            case .footer: writer.write(raw: "{\"kind\":\"footer\",\"section\":")
            case .decoration: writer.write(raw: "{\"kind\":\"decoration\",\"section\":")
            }
            writer.write(section)
            writer.write(raw: ",\"item\":")
            writer.write(item)
            writer.write(raw: ",\"x\":")
            writer.write(x)
            writer.write(raw: ",\"y\":")
            writer.write(y)
            writer.write(raw: ",\"width\":")
            writer.write(width)
            writer.write(raw: ",\"height\":")
            writer.write(height)
            if kind == .decoration {
                writer.write(raw: ",\"elementKind\":\"sectionBackground\",\"zIndex\":-1}")
            } else if pinning.pins(kind) {
                writer.write(raw: ",\"zIndex\":")
                writer.write(Pinning.pinnedZIndex)
                writer.write(byte: UInt8(ascii: "}"))
            } else {
                writer.write(byte: UInt8(ascii: "}"))
            }
        }
        writer.write(byte: UInt8(ascii: "]"))
    }

    /// `{"kind":[…],"section":[…],"item":[…],"x":[…],"y":[…],"width":[…],"height":[…]}`, one pass over
    /// the elements per column, straight into the reply (no per-column buffers to join and copy).
    private func encodeColumns(into writer: inout JSONWriter) {
        writer.write(raw: "{\"kind\":[")
        var first = true
        forEachFrame { kind, _, _, _, _, _, _ in
            if !first { writer.write(byte: UInt8(ascii: ",")) }
            first = false
            switch kind {
            case .cell: writer.write(raw: "\"cell\"")
            case .header: writer.write(raw: "\"header\"")
            case .footer: writer.write(raw: "\"footer\"")
            case .decoration: writer.write(raw: "\"decoration\"")
            }
        }
        writer.write(raw: "],\"section\":")
        writeColumn(into: &writer) { section, _, _, _, _, _ in Double(section) }
        writer.write(raw: ",\"item\":")
        writeColumn(into: &writer) { _, item, _, _, _, _ in Double(item) }
        writer.write(raw: ",\"x\":")
        writeColumn(into: &writer) { _, _, x, _, _, _ in x }
        writer.write(raw: ",\"y\":")
        writeColumn(into: &writer) { _, _, _, y, _, _ in y }
        writer.write(raw: ",\"width\":")
        writeColumn(into: &writer) { _, _, _, _, width, _ in width }
        writer.write(raw: ",\"height\":")
        writeColumn(into: &writer) { _, _, _, _, _, height in height }
        if pinning.pinsAny {
            // Only with pinning: a plain answer's zIndex follows from its kinds alone.
            writer.write(raw: ",\"zIndex\":[")
            var first = true
            forEachFrame { kind, _, _, _, _, _, _ in
                if !first { writer.write(byte: UInt8(ascii: ",")) }
                first = false
                writer.write(pinning.zIndex(of: kind))
            }
            writer.write(byte: UInt8(ascii: "]"))
        }
        writer.write(byte: UInt8(ascii: "}"))
    }

    /// One numeric column: `[v, v, …]` with `value` picking the field from (section, item, x, y, width,
    /// height). Section and item indices are exact as Doubles (they are far below 2^53).
    @inline(__always)
    private func writeColumn(into writer: inout JSONWriter, _ value: (Int, Int, Double, Double, Double, Double) -> Double) {
        writer.write(byte: UInt8(ascii: "["))
        var first = true
        forEachFrame { _, section, item, x, y, width, height in
            if !first { writer.write(byte: UInt8(ascii: ",")) }
            first = false
            writer.write(value(section, item, x, y, width, height))
        }
        writer.write(byte: UInt8(ascii: "]"))
    }
}

extension Attributes {
    /// Calls `body` with each selected element's kind, section, item and frame, in layout order.
    ///
    /// `.all` reads the section's frame columns directly (the bulk case: no element value per cell);
    /// it lists the same elements in the same order as `PreparedLayout.forEachElement`, which the
    /// other selections use.
    @inline(__always)
    func forEachFrame(_ body: (ElementKind, Int, Int, Double, Double, Double, Double) -> Void) {
        if case .rect(let rect) = selection, pinning.pinsAny || dynamics != nil {
            layout.forEachElement(inVisibleRect: rect, pinning: pinning, dynamics: dynamics) { element in
                let frame = element.frame
                body(element.kind, element.section, element.item, frame.x, frame.y, frame.width, frame.height)
            }
            return
        }
        guard case .all = selection else {
            layout.forEachElement(selectedBy: selection) { element in
                let frame = element.frame
                body(element.kind, element.section, element.item, frame.x, frame.y, frame.width, frame.height)
            }
            return
        }
        func supplementary(_ kind: ElementKind, _ section: Int) {
            guard let element = layout.supplementaryElement(kind, section: section) else { return }
            let frame = element.frame
            body(kind, section, 0, frame.x, frame.y, frame.width, frame.height)
        }
        for section in 0..<layout.sectionCount {
            supplementary(.header, section)
            let top = layout.sectionTops[section]
            let cells = layout.sectionFrames[section].cells
            cells.xs.withUnsafeBufferPointer { xs in
                cells.ys.withUnsafeBufferPointer { ys in
                    cells.widths.withUnsafeBufferPointer { widths in
                        cells.heights.withUnsafeBufferPointer { heights in
                            for item in 0..<xs.count {
                                body(.cell, section, item, xs[item], ys[item] + top, widths[item], heights[item])
                            }
                        }
                    }
                }
            }
            supplementary(.footer, section)
            supplementary(.decoration, section)
        }
    }
}

extension PreparedLayout {
    /// Calls `body` for each selected element, in layout order (per section: header, cells by item,
    /// footer, decoration). Index paths and sections that do not exist are left out; each is listed once.
    public func forEachElement(selectedBy selection: AttributeSelection, _ body: (LayoutElement) -> Void) {
        switch selection {
        case .all:
            forEachElement(body)
        case .rect(let rect):
            forEachElement(in: rect, body)
        case .items(let paths):
            for path in Self.ascendingUnique(paths) {
                if let element = cell(item: path.item, section: path.section) { body(element) }
            }
        case .supplementary(let kind, let sections):
            for section in sections.map(Self.ascendingUnique) ?? Array(0..<sectionCount) {
                if let element = supplementaryElement(kind, section: section) { body(element) }
            }
        }
    }

    /// Sorted without duplicates; a list that already is costs one scan.
    private static func ascendingUnique<T: Comparable & Hashable>(_ values: [T]) -> [T] {
        var isAscending = true
        for i in values.indices.dropFirst() where !(values[i - 1] < values[i]) {
            isAscending = false
            break
        }
        if isAscending { return values }
        return Set(values).sorted()
    }
}
