import LayoutEngine

/// The op-specific control fields of a request, read from their generic values with their paths.
struct RequestFields {
    let controls: ControlFields

    /// `layout`: the key a layout is kept under; a non-empty string.
    func layoutKey() throws(WireError) -> String {
        let key = try controls.required(.layout).string(at: .root / "layout")
        guard !key.isEmpty else { throw .invalidRequest("must not be empty", at: .root / "layout") }
        return key
    }

    /// `namespace`: optional, a non-empty string (an admin's query of another client's layout).
    func namespace() throws(WireError) -> String? {
        guard let value = controls.optional(.namespace) else { return nil }
        let namespace = try value.string(at: .root / "namespace")
        guard !namespace.isEmpty else { throw .invalidRequest("must not be empty", at: .root / "namespace") }
        return namespace
    }

    /// `list`'s `after`, `limit` (1…10,000) and `prefix`, all optional.
    func listRequest() throws(WireError) -> ListRequest {
        var request = ListRequest()
        if let value = controls.optional(.after) { request.after = try value.string(at: .root / "after") }
        if let value = controls.optional(.prefix) { request.prefix = try value.string(at: .root / "prefix") }
        if let value = controls.optional(.limit) {
            let limit = try value.integer(at: .root / "limit")
            guard (1...ListRequest.maxLimit).contains(limit) else {
                throw .invalidRequest("must be an integer from 1 to \(ListRequest.maxLimit), not \(limit)", at: .root / "limit")
            }
            request.limit = limit
        }
        return request
    }

    /// `ifVersion`: optional, an integer >= 0.
    func ifVersion() throws(WireError) -> Int? {
        guard let value = controls.optional(.ifVersion) else { return nil }
        return try value.index(at: .root / "ifVersion")
    }

    /// `bounds`: `{width, height}`; `x`/`y` (a scroll position) are accepted and ignored.
    func bounds() throws(WireError) -> Size {
        try ParametersDecoder.size(try controls.required(.bounds), at: .root / "bounds")
    }

    /// The layout input shared by `layout` and `prepare`. `layoutDirection` is read here only: the other
    /// ops keep the kept layout's direction.
    func layoutInput(sections decoded: [DecodedSection]) throws(WireError) -> LayoutInput {
        let bounds = try bounds()
        let specPath = JSONPath.root / "spec"
        let spec = try controls.required(.spec).object(at: specPath)
        let parameters = try ParametersDecoder.spec(spec, at: specPath)
        var contentInsets = Insets.zero
        if let value = controls.optional(.contentInsets) {
            contentInsets = try ParametersDecoder.insets(value, at: .root / "contentInsets")
        }
        var backgrounds = false
        if let value = controls.optional(.decorations) {
            let path = JSONPath.root / "decorations"
            let decorations = try value.object(at: path)
            if let flag = decorations.optional("sectionBackground") {
                backgrounds = try flag.bool(at: path / "sectionBackground")
            }
        }
        var direction = LayoutDirection.leftToRight
        if let value = controls.optional(.layoutDirection) {
            direction = try value.choice(LayoutDirection.self, at: .root / "layoutDirection")
        }
        var sections: [Section] = []
        sections.reserveCapacity(decoded.count)
        for (index, section) in decoded.enumerated() {
            var merged: LayoutParameters?
            if let params = section.params, !params.members.isEmpty {
                merged = try ParametersDecoder.merging(params, over: parameters, at: .root / "sections" / index / "params")
            }
            sections.append(Section(items: section.items, ids: section.ids, headerHeight: section.header, footerHeight: section.footer, parameters: merged))
        }
        return LayoutInput(
            bounds: bounds, parameters: parameters, contentInsets: contentInsets, sectionBackgrounds: backgrounds,
            layoutDirection: direction, sections: sections
        )
    }

    /// `return`: `"none"` (nil), `"all"`, or `{"rect":{…}}`; absent gives `fallback`.
    func attributes(default fallback: AttributeSelection?) throws(WireError) -> AttributeSelection? {
        switch controls[.return] {
        case nil, .null?:
            return fallback
        case .string("none")?:
            return nil
        case .string("all")?:
            return .all
        case .object(let object)?:
            guard let rect = object["rect"] else { break }
            return .rect(try Self.rect(rect, at: .root / "return" / "rect"))
        default:
            break
        }
        throw .invalidRequest("must be \"none\", \"all\" or {\"rect\":{x,y,width,height}}", at: .root / "return")
    }

    /// `format`: `"objects"` (default) or `"columns"`.
    func format() throws(WireError) -> AttributesFormat {
        guard let value = controls.optional(.format) else { return .objects }
        return try value.choice(AttributesFormat.self, at: .root / "format")
    }

    /// A query's target: exactly one of `rect` and `items` (both already decoded) and `supplementary`.
    func querySelection(rect: Result<Rect, WireError>?, items: [ItemIndexPath]?) throws(WireError) -> AttributeSelection {
        let supplementary = controls.optional(.supplementary)
        let givenCount = (rect == nil ? 0 : 1) + (items == nil ? 0 : 1) + (supplementary == nil ? 0 : 1)
        if givenCount != 1 {
            // The names are listed only on this error path: an array per query is not free.
            let given = [rect.map { _ in "rect" }, items.map { _ in "items" }, supplementary.map { _ in "supplementary" }].compactMap { $0 }
            guard let first = given.first else {
                throw WireError(.invalidRequest, "a query needs one of \"rect\", \"items\" or \"supplementary\"")
            }
            throw .invalidRequest("only one of \"rect\", \"items\" and \"supplementary\" may be given (\"\(first)\" is)", at: .root / given[1])
        }
        if let rect { return .rect(try rect.get()) }
        if let items { return .items(items) }
        guard let supplementary else { throw WireError(.internal, "query target vanished") }
        return try Self.supplementary(supplementary, at: .root / "supplementary")
    }

    /// `{x, y, width, height}`, all required; width and height >= 0.
    static func rect(_ value: JSONValue, at path: @autoclosure () -> JSONPath) throws(WireError) -> Rect {
        let object = try value.object(at: path())
        func field(_ name: String) throws(WireError) -> Double {
            try object.required(name, in: path()).number(at: path() / name)
        }
        let rect = Rect(x: try field("x"), y: try field("y"), width: try field("width"), height: try field("height"))
        guard rect.width >= 0 else { throw .invalidRequest("must be a number >= 0, not \(rect.width)", at: path() / "width") }
        guard rect.height >= 0 else { throw .invalidRequest("must be a number >= 0, not \(rect.height)", at: path() / "height") }
        return rect
    }

    /// `{"kind": "header"|"footer"|"decoration", "sections": [s, …]}`; without `sections`, every section.
    /// `sectionBackground` (the decoration's elementKind) names the decoration too.
    static func supplementary(_ value: JSONValue, at path: JSONPath) throws(WireError) -> AttributeSelection {
        let object = try value.object(at: path)
        let kindPath = path / "kind"
        let kind: ElementKind
        switch try object.required("kind", in: path).string(at: kindPath) {
        case "header": kind = .header
        case "footer": kind = .footer
        case "decoration", "sectionBackground": kind = .decoration
        case let other:
            throw .invalidRequest("\"\(other)\" is not one of \"header\", \"footer\", \"decoration\"", at: kindPath)
        }
        guard let sectionsValue = object.optional("sections") else { return .supplementary(kind, sections: nil) }
        let sectionsPath = path / "sections"
        var sections: [Int] = []
        for (index, element) in try sectionsValue.array(at: sectionsPath).enumerated() {
            sections.append(try element.index(at: sectionsPath / index))
        }
        return .supplementary(kind, sections: sections)
    }
}

/// A query's `items`: `[[section, item], …]`, read straight into index paths.
enum ItemIndexPathsDecoder {
    static func decode(_ reader: inout JSONReader, at path: JSONPath) throws(WireError) -> [ItemIndexPath] {
        try SectionsDecoder.expect(.array, in: &reader, at: path)
        var paths: [ItemIndexPath] = []
        guard try reader.beginArray() else { return paths }
        repeat {
            // Paths are built only on the error path: a query may list 10^6 items.
            let n = paths.count
            try SectionsDecoder.expect(.array, in: &reader, at: path / n)
            guard try reader.beginArray() else { throw .invalidRequest("must be [section, item]", at: path / n) }
            let section = try index(&reader, at: path / n / 0)
            guard try reader.nextElement() else { throw .invalidRequest("must be [section, item]", at: path / n) }
            let item = try index(&reader, at: path / n / 1)
            guard try !reader.nextElement() else { throw .invalidRequest("must be [section, item]", at: path / n) }
            paths.append(ItemIndexPath(section: section, item: item))
        } while try reader.nextElement()
        return paths
    }

    private static func index(_ reader: inout JSONReader, at path: @autoclosure () -> JSONPath) throws(WireError) -> Int {
        try SectionsDecoder.expect(.number, in: &reader, at: path())
        let value: Int
        do throws(WireError) { value = try reader.readInteger() } catch { throw error.located(at: path()) }
        guard value >= 0 else { throw .invalidRequest("must be an integer >= 0, not \(value)", at: path()) }
        return value
    }
}
