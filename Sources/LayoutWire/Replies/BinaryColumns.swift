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
    public var bytes: OwnedBytes
}

/// The columns of a binary attributes reply, one frame each after the JSON header.
///
/// Built once, when the reply is made: the header names each column's count, so the columns must be
/// known before the header is written.
public struct BinaryColumns: Sendable {
    /// `kind` values index this list.
    public static let kindNames = ["cell", "header", "footer", "decoration"]

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
        let kinds = OwnedBytes(uninitializedCount: count)
        let sections = OwnedBytes(uninitializedCount: count * 4)
        let items = OwnedBytes(uninitializedCount: count * 4)
        let xs = OwnedBytes(uninitializedCount: count * 8)
        let ys = OwnedBytes(uninitializedCount: count * 8)
        let widths = OwnedBytes(uninitializedCount: count * 8)
        let heights = OwnedBytes(uninitializedCount: count * 8)
        let pinning = attributes.pinning
        let zIndices = pinning.pinsAny ? OwnedBytes(uninitializedCount: count * 4) : nil
        var filled = 0
        if let k = kinds.typed(UInt8.self), let s = sections.typed(Int32.self), let i = items.typed(Int32.self),
           let x = xs.typed(Double.self), let y = ys.typed(Double.self), let w = widths.typed(Double.self), let h = heights.typed(Double.self) {
            let z = zIndices?.typed(Int32.self)
            attributes.forEachFrame { kind, section, item, frameX, frameY, frameWidth, frameHeight in
                // The count was taken from the same selection; the guard only keeps a disagreement
                // from writing out of bounds.
                guard filled < count else { return }
                k[filled] = Self.code(of: kind)
                s[filled] = Int32(truncatingIfNeeded: section).littleEndian
                i[filled] = Int32(truncatingIfNeeded: item).littleEndian
                x[filled] = Double(bitPattern: frameX.bitPattern.littleEndian)
                y[filled] = Double(bitPattern: frameY.bitPattern.littleEndian)
                w[filled] = Double(bitPattern: frameWidth.bitPattern.littleEndian)
                h[filled] = Double(bitPattern: frameHeight.bitPattern.littleEndian)
                z?[filled] = Int32(truncatingIfNeeded: pinning.zIndex(of: kind)).littleEndian
                filled += 1
            }
        }
        // Never more than counted; fewer only if the layout disagreed with its own element count.
        self.count = filled
        columns = [
            BinaryColumn(name: "kind", type: .uint8, count: filled, bytes: kinds),
            BinaryColumn(name: "section", type: .int32, count: filled, bytes: sections),
            BinaryColumn(name: "item", type: .int32, count: filled, bytes: items),
            BinaryColumn(name: "x", type: .float64, count: filled, bytes: xs),
            BinaryColumn(name: "y", type: .float64, count: filled, bytes: ys),
            BinaryColumn(name: "width", type: .float64, count: filled, bytes: widths),
            BinaryColumn(name: "height", type: .float64, count: filled, bytes: heights),
        ]
        if let zIndices {
            columns.append(BinaryColumn(name: "zIndex", type: .int32, count: filled, bytes: zIndices))
        }
        if filled < count {
            // Frames must hold exactly `count` values of their type.
            for index in columns.indices { columns[index].bytes.truncate(to: filled * columns[index].type.size) }
        }
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
