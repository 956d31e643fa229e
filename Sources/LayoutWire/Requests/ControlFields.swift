/// The top-level members of a request that are kept as generic values: small control fields, read
/// before the op is known and interpreted once it is.
///
/// One slot per name rather than a `JSONObject`: a member is filed without making a `String` of its
/// name, hashing it or growing an array, which was most of the cost of decoding a small request.
/// A name given twice keeps its last value, as `JSONObject` lookups (and JavaScript's `JSON.parse`) do.
struct ControlFields {
    enum Name: Int, CaseIterable {
        case v, id, op, layout, bounds, spec, contentInsets, decorations, `return`, format, rect, supplementary, ifVersion, pin, dynamics
        case layoutDirection, namespace, after, limit, prefix

        /// The member name as it appears in a body.
        var key: String {
            switch self {
            case .v: return "v"
            case .id: return "id"
            case .op: return "op"
            case .layout: return "layout"
            case .bounds: return "bounds"
            case .spec: return "spec"
            case .contentInsets: return "contentInsets"
            case .decorations: return "decorations"
            case .return: return "return"
            case .format: return "format"
            case .rect: return "rect"
            case .supplementary: return "supplementary"
            case .ifVersion: return "ifVersion"
            case .pin: return "pin"
            case .dynamics: return "dynamics"
            case .layoutDirection: return "layoutDirection"
            case .namespace: return "namespace"
            case .after: return "after"
            case .limit: return "limit"
            case .prefix: return "prefix"
            }
        }
    }

    // As many slots as `Name` has cases (a test reads and writes every one).
    private var values = InlineArray<20, JSONValue?>(repeating: nil)

    subscript(name: Name) -> JSONValue? {
        get { values[name.rawValue] }
        set { values[name.rawValue] = newValue }
    }

    /// The member `name`, which must be present.
    func required(_ name: Name) throws(WireError) -> JSONValue {
        guard let value = self[name] else {
            throw .invalidRequest("missing required field \"\(name.key)\"", at: .root / name.key)
        }
        return value
    }

    /// The member `name` unless it is absent or null.
    func optional(_ name: Name) -> JSONValue? {
        guard let value = self[name], value != .null else { return nil }
        return value
    }
}

/// What a top-level member of a request is, found from its name's bytes without decoding it.
enum TopLevelMember: Equatable {
    case control(ControlFields.Name)
    case sections
    case items
    case updates

    /// The member named by `key` (read by `reader`); nil for a name the protocol does not define,
    /// which the decoder skips for forward compatibility.
    init?(_ key: JSONKey, in reader: JSONReader) {
        guard !key.hasEscapes else {
            // Rare: an escaped name must be unescaped before it can be compared.
            guard let text = try? reader.string(of: key), let member = Self(name: text) else { return nil }
            self = member
            return
        }
        func named(_ name: StaticString) -> Bool { reader.key(key, is: name) }
        // The length narrows the candidates to one or two names.
        switch key.range.count {
        case 1 where named("v"): self = .control(.v)
        case 2 where named("id"): self = .control(.id)
        case 2 where named("op"): self = .control(.op)
        case 3 where named("pin"): self = .control(.pin)
        case 4 where named("rect"): self = .control(.rect)
        case 4 where named("spec"): self = .control(.spec)
        case 5 where named("items"): self = .items
        case 5 where named("after"): self = .control(.after)
        case 5 where named("limit"): self = .control(.limit)
        case 6 where named("layout"): self = .control(.layout)
        case 6 where named("bounds"): self = .control(.bounds)
        case 6 where named("format"): self = .control(.format)
        case 6 where named("prefix"): self = .control(.prefix)
        case 6 where named("return"): self = .control(.return)
        case 7 where named("updates"): self = .updates
        case 8 where named("sections"): self = .sections
        case 8 where named("dynamics"): self = .control(.dynamics)
        case 9 where named("ifVersion"): self = .control(.ifVersion)
        case 9 where named("namespace"): self = .control(.namespace)
        case 11 where named("decorations"): self = .control(.decorations)
        case 13 where named("contentInsets"): self = .control(.contentInsets)
        case 13 where named("supplementary"): self = .control(.supplementary)
        case 15 where named("layoutDirection"): self = .control(.layoutDirection)
        default: return nil
        }
    }

    /// The member with this (unescaped) name.
    init?(name: String) {
        switch name {
        case "sections": self = .sections
        case "items": self = .items
        case "updates": self = .updates
        default:
            guard let control = ControlFields.Name.allCases.first(where: { $0.key == name }) else { return nil }
            self = .control(control)
        }
    }
}

extension OperationName {
    /// The op a string token names, matched by its bytes; nil for anything else (and for a token with
    /// escapes, which must be unescaped first).
    init?(_ token: JSONKey, in reader: JSONReader) {
        guard !token.hasEscapes else { return nil }
        func named(_ name: StaticString) -> Bool { reader.key(token, is: name) }
        switch token.range.count {
        case 4 where named("ping"): self = .ping
        case 4 where named("list"): self = .list
        case 4 where named("drop"): self = .drop
        case 4 where named("diff"): self = .diff
        case 5 where named("query"): self = .query
        case 6 where named("layout"): self = .layout
        case 6 where named("bounds"): self = .bounds
        case 6 where named("update"): self = .update
        case 7 where named("prepare"): self = .prepare
        default: return nil
        }
    }
}
