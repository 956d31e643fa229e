import LayoutEngine

/// The `result` object of a successful reply.
public protocol WireResult {
    /// Writes the result object, braces included.
    func encode(into writer: inout JSONWriter)
    /// A guess at the encoded size, so the writer rarely grows.
    var estimatedByteCount: Int { get }
    /// The frames that follow the reply's JSON when it lists attributes in the binary format.
    var binaryColumns: BinaryColumns? { get }
}

extension WireResult {
    public var estimatedByteCount: Int { 256 }
    public var binaryColumns: BinaryColumns? { nil }
}

/// `{sections, items, elements}` of a prepared layout, plus `widowCount` and `hiddenItems` for a
/// `justified` one.
public struct Counts: Hashable, Sendable {
    public var sections: Int
    public var items: Int
    public var elements: Int
    /// Present only for `justified` layouts.
    public var placement: PlacementCounts?

    public init(sections: Int, items: Int, elements: Int, placement: PlacementCounts? = nil) {
        self.sections = sections
        self.items = items
        self.elements = elements
        self.placement = placement
    }

    public init(_ layout: PreparedLayout) {
        self.init(
            sections: layout.sectionCount, items: layout.itemCount, elements: layout.elementCount,
            placement: layout.input.parameters.kind == .justified ? layout.placementCounts : nil
        )
    }

    func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"sections\":")
        writer.write(sections)
        writer.write(raw: ",\"items\":")
        writer.write(items)
        writer.write(raw: ",\"elements\":")
        writer.write(elements)
        if let placement {
            writer.write(raw: ",\"widowCount\":")
            writer.write(placement.widowCount)
            writer.write(raw: ",\"hiddenItems\":")
            writer.write(placement.hiddenItemCount)
        }
        writer.write(byte: UInt8(ascii: "}"))
    }
}

extension JSONWriter {
    /// `{"width":…,"height":…}`.
    public mutating func write(_ size: Size) {
        write(raw: "{\"width\":")
        write(size.width)
        write(raw: ",\"height\":")
        write(size.height)
        write(byte: UInt8(ascii: "}"))
    }

    /// `[[section,item],…]`.
    public mutating func write(_ paths: [ItemIndexPath]) {
        write(byte: UInt8(ascii: "["))
        for (index, path) in paths.enumerated() {
            if index > 0 { write(byte: UInt8(ascii: ",")) }
            write(byte: UInt8(ascii: "["))
            write(path.section)
            write(byte: UInt8(ascii: ","))
            write(path.item)
            write(byte: UInt8(ascii: "]"))
        }
        write(byte: UInt8(ascii: "]"))
    }
}

/// `ping` → `{"version":…,"layouts":[…],"uptimeSeconds":…}`.
public struct PingResult: WireResult, Hashable, Sendable {
    public var version: String
    public var layouts: [String]
    public var uptimeSeconds: Double

    public init(version: String, layouts: [String] = LayoutKind.allCases.map(\.rawValue), uptimeSeconds: Double) {
        self.version = version
        self.layouts = layouts
        self.uptimeSeconds = uptimeSeconds
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"version\":")
        writer.write(version)
        writer.write(raw: ",\"layouts\":[")
        for (index, name) in layouts.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(name)
        }
        writer.write(raw: "],\"uptimeSeconds\":")
        writer.write(uptimeSeconds)
        writer.write(byte: UInt8(ascii: "}"))
    }
}

/// `layout` → `{"contentSize":…,"counts":…,"attributes":…}` (no `attributes` for `"return":"none"`).
public struct LayoutResult: WireResult, Sendable {
    public var layout: PreparedLayout
    public var attributes: Attributes?

    public init(layout: PreparedLayout, selection: AttributeSelection?, format: AttributesFormat) {
        self.layout = layout
        attributes = selection.map { Attributes(layout: layout, selection: $0, format: format) }
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"contentSize\":")
        writer.write(layout.contentSize)
        writer.write(raw: ",\"counts\":")
        Counts(layout).encode(into: &writer)
        if let attributes {
            writer.write(raw: ",\"attributes\":")
            attributes.encode(into: &writer)
        }
        writer.write(byte: UInt8(ascii: "}"))
    }

    public var estimatedByteCount: Int { 128 + (attributes?.estimatedByteCount ?? 0) }
    public var binaryColumns: BinaryColumns? { attributes?.binaryColumns }
}

/// `prepare` → `{"layout":…,"version":…,"contentSize":…,"counts":…}` plus `attributes` if asked for.
public struct PrepareResult: WireResult, Sendable {
    public var key: String
    public var version: Int
    public var layout: PreparedLayout
    public var attributes: Attributes?

    public init(key: String, version: Int, layout: PreparedLayout, selection: AttributeSelection?, format: AttributesFormat) {
        self.key = key
        self.version = version
        self.layout = layout
        attributes = selection.map { Attributes(layout: layout, selection: $0, format: format) }
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"layout\":")
        writer.write(key)
        writer.write(raw: ",\"version\":")
        writer.write(version)
        writer.write(raw: ",\"contentSize\":")
        writer.write(layout.contentSize)
        writer.write(raw: ",\"counts\":")
        Counts(layout).encode(into: &writer)
        if let attributes {
            writer.write(raw: ",\"attributes\":")
            attributes.encode(into: &writer)
        }
        writer.write(byte: UInt8(ascii: "}"))
    }

    public var estimatedByteCount: Int { 160 + key.utf8.count + (attributes?.estimatedByteCount ?? 0) }
    public var binaryColumns: BinaryColumns? { attributes?.binaryColumns }
}

/// `query` → `{"version":…,"attributes":…}`.
public struct QueryResult: WireResult, Sendable {
    public var version: Int
    public var attributes: Attributes

    public init(version: Int, layout: PreparedLayout, selection: AttributeSelection, format: AttributesFormat, pinning: Pinning = .none, dynamics: ScrollDynamics? = nil) {
        self.version = version
        attributes = Attributes(layout: layout, selection: selection, format: format, pinning: pinning, dynamics: dynamics)
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"version\":")
        writer.write(version)
        writer.write(raw: ",\"attributes\":")
        attributes.encode(into: &writer)
        writer.write(byte: UInt8(ascii: "}"))
    }

    public var estimatedByteCount: Int { 64 + attributes.estimatedByteCount }
    public var binaryColumns: BinaryColumns? { attributes.binaryColumns }
}

/// `bounds` → `{"invalidated":…,"version":…,"contentSize":…}`.
public struct BoundsResult: WireResult, Hashable, Sendable {
    public var invalidated: Bool
    public var version: Int
    public var contentSize: Size

    public init(invalidated: Bool, version: Int, contentSize: Size) {
        self.invalidated = invalidated
        self.version = version
        self.contentSize = contentSize
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"invalidated\":")
        writer.write(invalidated)
        writer.write(raw: ",\"version\":")
        writer.write(version)
        writer.write(raw: ",\"contentSize\":")
        writer.write(contentSize)
        writer.write(byte: UInt8(ascii: "}"))
    }
}

/// `drop` → `{"layout":…,"version":…}`: the key and the version of the `invalidated` (`dropped`) event the
/// drop published, one more than the layout's last version.
public struct DropResult: WireResult, Hashable, Sendable {
    public var layout: String
    public var version: Int

    public init(layout: String, version: Int) {
        self.layout = layout
        self.version = version
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"layout\":")
        writer.write(layout)
        writer.write(raw: ",\"version\":")
        writer.write(version)
        writer.write(byte: UInt8(ascii: "}"))
    }
}

/// `list` → `{"layouts":[{"layout":…,"version":…,"items":…,"bytes":…},…]}`.
