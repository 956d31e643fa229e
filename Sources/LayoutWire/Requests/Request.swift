import LayoutEngine

/// A request's `id`, echoed in its reply exactly as sent.
public enum RequestID: Hashable, Sendable {
    case string(String)
    /// The number's exact text, so `12345678901234567890` or `1.50` comes back unchanged.
    case number(String)
}

/// The operations of the front socket (PROTOCOL.md, Ops on the front socket).
public enum OperationName: String, Hashable, Sendable, CaseIterable {
    case ping, layout, prepare, query, bounds, update, diff, drop, list
}

/// One decoded request.
public struct Request: Sendable {
    /// nil when the request has none (or `null`); the reply then carries `"id":null`.
    public var id: RequestID?
    public var operation: Operation

    public init(id: RequestID?, operation: Operation) {
        self.id = id
        self.operation = operation
    }
}

/// What a request asks for, with its op-specific fields decoded.
public enum Operation: Sendable {
    case ping
    // Boxed: a layout input is some 200 bytes, which every small request would otherwise carry and
    // copy along (a request is copied several times on its way through the worker pool).
    indirect case layout(LayoutRequest)
    indirect case prepare(PrepareRequest)
    case query(QueryRequest)
    case bounds(BoundsRequest)
    /// A batch update of a kept layout.
    case update(UpdateRequest)
    /// New contents of a kept layout, to be turned into a batch by identity.
    case diff(DiffRequest)
    case drop(DropRequest)
    case list(ListRequest)

    public var name: OperationName {
        switch self {
        case .ping: return .ping
        case .layout: return .layout
        case .prepare: return .prepare
        case .query: return .query
        case .bounds: return .bounds
        case .update: return .update
        case .diff: return .diff
        case .drop: return .drop
        case .list: return .list
        }
    }

    /// The layout key the op works on (the caller's own, or the `namespace` an admin's query names);
    /// nil for the ops that name none.
    public var layoutKey: String? {
        switch self {
        case .ping, .layout, .list: return nil
        case .prepare(let r): return r.layout
        case .query(let r): return r.layout
        case .bounds(let r): return r.layout
        case .drop(let r): return r.layout
        case .update(let r): return r.layout
        case .diff(let r): return r.layout
        }
    }

    /// Whether the op changes the layout it names: `OperationName.changesLayout`.
    public var changesLayout: Bool { name.changesLayout }
}

/// `layout`: compute and answer, keep nothing.
public struct LayoutRequest: Sendable {
    public var input: LayoutInput
    /// Which attributes the reply carries; nil for `"return":"none"`. Default: all.
    public var attributes: AttributeSelection?
    public var format: AttributesFormat

    public init(input: LayoutInput, attributes: AttributeSelection? = .all, format: AttributesFormat = .objects) {
        self.input = input
        self.attributes = attributes
        self.format = format
    }
}

/// `prepare`: compute and keep under `layout`.
public struct PrepareRequest: Sendable {
    public var layout: String
    public var input: LayoutInput
    /// Which attributes the reply carries; nil (the default) for `"return":"none"`.
    public var attributes: AttributeSelection?
    public var format: AttributesFormat
    /// `ifVersion`: prepare only if the key is at this version (0: it was never kept; after a drop or an
    /// eviction, the version of that event).
    public var ifVersion: Int?

    public init(layout: String, input: LayoutInput, attributes: AttributeSelection? = nil, format: AttributesFormat = .objects, ifVersion: Int? = nil) {
        self.ifVersion = ifVersion
        self.layout = layout
        self.input = input
        self.attributes = attributes
        self.format = format
    }
}

/// `query`: attributes of a kept layout.
public struct QueryRequest: Hashable, Sendable {
    public var layout: String
    public var selection: AttributeSelection
    public var format: AttributesFormat
    /// `pin`: headers and footers pinned to the rect's edges (only with a rect selection).
    public var pinning: Pinning
    /// `dynamics`: cells displaced by a scroll (only with a rect selection).
    public var dynamics: ScrollDynamics?
    /// Whose layout: another client's namespace, which only an admin of a daemon with CURVE may read;
    /// nil for the caller's own.
    public var namespace: String?

    public init(
        layout: String, selection: AttributeSelection, format: AttributesFormat = .objects, pinning: Pinning = .none,
        dynamics: ScrollDynamics? = nil, namespace: String? = nil
    ) {
        self.layout = layout
        self.selection = selection
        self.format = format
        self.pinning = pinning
        self.dynamics = dynamics
        self.namespace = namespace
    }
}

/// `bounds`: new bounds for a kept layout; only a size change invalidates it.
public struct BoundsRequest: Hashable, Sendable {
    public var layout: String
    public var bounds: Size
    /// `ifVersion`: apply only if the kept layout is at this version.
    public var ifVersion: Int?

    public init(layout: String, bounds: Size, ifVersion: Int? = nil) {
        self.layout = layout
        self.bounds = bounds
        self.ifVersion = ifVersion
    }
}

/// `drop`: forget a kept layout.
public struct DropRequest: Hashable, Sendable {
    public var layout: String
    /// `ifVersion`: drop only a layout kept at this version.
    public var ifVersion: Int?

    public init(layout: String, ifVersion: Int? = nil) {
        self.layout = layout
        self.ifVersion = ifVersion
    }
}

/// A cell's place: section and item index (not named `IndexPath`, which Foundation takes).
public struct ItemIndexPath: Hashable, Comparable, Sendable {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (lhs: ItemIndexPath, rhs: ItemIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }
}

/// Which elements of a layout a reply lists.
public enum AttributeSelection: Hashable, Sendable {
    /// Every element.
    case all
    /// Elements overlapping the rect with positive area.
    case rect(Rect)
    /// The cells at these index paths (those that exist).
    case items([ItemIndexPath])
    /// The headers, footers or decorations of these sections (nil: every section), those that exist.
    case supplementary(ElementKind, sections: [Int]?)
}

/// How attributes are laid out in a reply.
public enum AttributesFormat: String, Hashable, Sendable, CaseIterable {
    /// One object per element.
    case objects
    /// One array per field.
    case columns
    /// One binary frame per field after a JSON header (PROTOCOL.md §6): packed little-endian values.
    case binary
}
