import LayoutEngine

/// Bytes allocated with Swift's allocator and owned until someone takes them: a reply frame that
/// libzmq may adopt without a copy (`zmq_msg_init_data`), or that is freed with its owner otherwise.
///
/// Swift's allocator is malloc on the platforms we run on, so libzmq may free() what it adopts.
public final class OwnedBytes: @unchecked Sendable {
    // @unchecked Sendable: one owner at a time. A worker thread fills the bytes and posts the reply;
    // only the I/O thread then takes them (once). deinit frees bytes nobody took.
    private var base: UnsafeMutableRawPointer?
    /// The number of bytes (0 once taken).
    public private(set) var count: Int

    /// Takes ownership of `count` initialized bytes at `base`, which must come from
    /// `UnsafeMutableRawPointer.allocate` (or malloc).
    public init(base: UnsafeMutableRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    /// `count` uninitialized bytes, for the caller to fill before it hands them on.
    public convenience init(uninitializedCount count: Int) {
        // At least one byte, so that an empty column still has an address of its own to free.
        self.init(base: .allocate(byteCount: max(count, 1), alignment: 16), count: count)
    }

    deinit {
        base?.deallocate()
    }

    /// A copy of the bytes (tests, small frames).
    public var bytes: [UInt8] {
        guard let base else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes, handed over: the caller frees them (or has libzmq free them). nil once taken.
    public func take() -> UnsafeMutableRawBufferPointer? {
        guard let base else { return nil }
        self.base = nil
        defer { count = 0 }
        return UnsafeMutableRawBufferPointer(start: base, count: count)
    }

    /// The bytes as `T`s while they are still owned here.
    fileprivate func typed<T>(_: T.Type) -> UnsafeMutablePointer<T>? {
        base?.assumingMemoryBound(to: T.self)
    }
}

/// One column of a binary reply (PROTOCOL.md §6, `"format": "binary"`): its name, its element type and
/// its values, packed little-endian.
public struct BinaryColumn: Sendable {
    /// The element types a column may have, by their names on the wire.
    public enum ElementType: String, Sendable {
        case uint8, int32, float64

        /// Bytes per value.
        public var size: Int {
            switch self {
            case .uint8: return 1
            case .int32: return 4
            case .float64: return 8
            }
        }
    }

    public var name: String
    public var type: ElementType
    public var count: Int
    public var bytes: ColumnBytes
}

/// A column's bytes: filled for the reply, or the engine's own frame column, shared as it is.
public enum ColumnBytes: Sendable {
    case owned(OwnedBytes)
    /// An immutable frame column of a prepared layout (native `Double`s, so only on little-endian
    /// hosts), kept alive by this value until the message that shares it is sent.
    case shared(SharedColumn)

    public var count: Int {
        switch self {
        case .owned(let bytes): return bytes.count
        case .shared(let column): return column.values.count * 8
        }
    }

    /// A copy of the bytes (tests).
    public var bytes: [UInt8] {
        switch self {
        case .owned(let bytes): return bytes.bytes
        case .shared(let column): return column.values.withUnsafeBytes { Array($0) }
        }
    }
}

/// A prepared layout's frame column, shared with a reply without a copy.
///
/// A class, so that libzmq can keep it alive (retained) for as long as it holds the message; the array
/// is never mutated, so its storage stays where it is.
public final class SharedColumn: Sendable {
    public let values: [Double]

    init(_ values: [Double]) {
        self.values = values
    }

    /// The values' bytes, valid for as long as this column lives: its array is never mutated and has
    /// storage of its own (it is the engine's, never empty here), so the storage does not move.
    public var storage: UnsafeRawBufferPointer {
        values.withUnsafeBytes { $0 }
    }
}

/// The columns of a binary attributes reply, one frame each after the JSON header.
///
/// Built once, when the reply is made: the header names each column's count, so the columns must be
/// known before the header is written.
public struct BinaryColumns: Sendable {
    /// Elements in each column.
    public private(set) var count: Int
    /// In frame order: `kind`, `section`, `item`, `x`, `y`, `width`, `height`, and `zIndex` with pinning.
    public private(set) var columns: [BinaryColumn]

    /// The attributes' elements as columns, in layout order.
    init(_ attributes: Attributes) {
        let count: Int
        if case .all = attributes.selection {
            count = attributes.layout.elementCount
        } else {
            // A screenful, usually: a counting pass is cheaper than growing seven buffers.
            var counted = 0
            attributes.forEachFrame { _, _, _, _, _, _, _ in counted += 1 }
            count = counted
        }
        // The engine's frame columns go out as they are where they already are the answer (issue 13:
        // "without a copy where libzmq allows it"): every element of a single section without headers,
        // footers or decorations, on a little-endian host; y too when the section starts at 0.
        let shared = Self.sharedFrames(of: attributes, count: count)
        let kinds = OwnedBytes(uninitializedCount: count)
        let sections = OwnedBytes(uninitializedCount: count * 4)
        let items = OwnedBytes(uninitializedCount: count * 4)
        func frameColumn(_ share: [Double]?) -> ColumnBytes {
            share.map { .shared(SharedColumn($0)) } ?? .owned(OwnedBytes(uninitializedCount: count * 8))
        }
        let xs = frameColumn(shared?.xs), ys = frameColumn(shared?.ys), widths = frameColumn(shared?.widths), heights = frameColumn(shared?.heights)
        let pinning = attributes.pinning
        let zIndices = pinning.pinsAny ? OwnedBytes(uninitializedCount: count * 4) : nil
        var filled = 0
        if let k = kinds.typed(UInt8.self), let s = sections.typed(Int32.self), let i = items.typed(Int32.self) {
            let x = xs.typed, y = ys.typed, w = widths.typed, h = heights.typed
            let z = zIndices?.typed(Int32.self)
            attributes.forEachFrame { kind, section, item, frameX, frameY, frameWidth, frameHeight in
                // The count was taken from the same selection; the guard only keeps a disagreement
                // from writing out of bounds.
                guard filled < count else { return }
                k[filled] = Self.code(of: kind)
                s[filled] = Int32(truncatingIfNeeded: section).littleEndian
                i[filled] = Int32(truncatingIfNeeded: item).littleEndian
                x?[filled] = Double(bitPattern: frameX.bitPattern.littleEndian)
                y?[filled] = Double(bitPattern: frameY.bitPattern.littleEndian)
                w?[filled] = Double(bitPattern: frameWidth.bitPattern.littleEndian)
                h?[filled] = Double(bitPattern: frameHeight.bitPattern.littleEndian)
                z?[filled] = Int32(truncatingIfNeeded: pinning.zIndex(of: kind)).littleEndian
                filled += 1
            }
        }
        // Never more than counted; fewer only if the layout disagreed with its own element count. Shared
        // columns are taken only where the selection is exactly those cells (`sharedFrames`), so they
        // always hold `filled` values.
        self.count = filled
        columns = [
            BinaryColumn(name: "kind", type: .uint8, count: filled, bytes: .owned(kinds)),
            BinaryColumn(name: "section", type: .int32, count: filled, bytes: .owned(sections)),
            BinaryColumn(name: "item", type: .int32, count: filled, bytes: .owned(items)),
            BinaryColumn(name: "x", type: .float64, count: filled, bytes: xs),
            BinaryColumn(name: "y", type: .float64, count: filled, bytes: ys),
            BinaryColumn(name: "width", type: .float64, count: filled, bytes: widths),
            BinaryColumn(name: "height", type: .float64, count: filled, bytes: heights),
        ]
        if let zIndices {
            columns.append(BinaryColumn(name: "zIndex", type: .int32, count: filled, bytes: .owned(zIndices)))
        }
        if filled < count {
            // Frames must hold exactly `count` values of their type.
            for column in columns {
                if case .owned(let bytes) = column.bytes { bytes.truncate(to: filled * column.type.size) }
            }
        }
    }

    /// The frame columns of a layout whose answer they are, whole; nil where they cannot be shared.
    private static func sharedFrames(of attributes: Attributes, count: Int) -> (xs: [Double], ys: [Double]?, widths: [Double], heights: [Double])? {
        #if _endian(little)
        let layout = attributes.layout
        guard case .all = attributes.selection, layout.sectionCount == 1 else { return nil }
        let cells = layout.sectionFrames[0].cells
        guard cells.xs.count == count, count == layout.elementCount, count > 0 else { return nil }
        return (cells.xs, layout.sectionTops[0] == 0 ? cells.ys : nil, cells.widths, cells.heights)
        #else
        return nil
        #endif
    }

    @inline(__always)
    static func code(of kind: ElementKind) -> UInt8 {
        switch kind {
        case .cell: return 0
        case .header: return 1
        case .footer: return 2
        case .decoration: return 3
        }
    }

    /// `{"format":"binary","count":N,"kinds":[…],"columns":[{"name":…,"type":…,"count":N,"byteOrder":"little","frame":1},…]}`.
    func encodeDescription(into writer: inout JSONWriter) {
        writer.write(raw: "{\"format\":\"binary\",\"count\":")
        writer.write(count)
        writer.write(raw: ",\"kinds\":[\"cell\",\"header\",\"footer\",\"decoration\"],\"columns\":[")
        for (index, column) in columns.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(raw: "{\"name\":")
            writer.write(column.name)
            writer.write(raw: ",\"type\":")
            writer.write(column.type.rawValue)
            writer.write(raw: ",\"count\":")
            writer.write(column.count)
            writer.write(raw: ",\"byteOrder\":\"little\",\"frame\":")
            writer.write(index + 1)
            writer.write(byte: UInt8(ascii: "}"))
        }
        writer.write(raw: "]}")
    }
}

extension OwnedBytes {
    /// Keeps only the first `count` bytes (never grows).
    fileprivate func truncate(to newCount: Int) {
        count = min(count, newCount)
    }
}

extension ColumnBytes {
    /// Where to write a filled column's values; nil for a shared one (already written).
    fileprivate var typed: UnsafeMutablePointer<Double>? {
        if case .owned(let bytes) = self { return bytes.typed(Double.self) }
        return nil
    }
}
