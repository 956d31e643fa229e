import LayoutEngine

/// Layout parameters by the exact names of LAYOUTS.md, from a `spec` object and from a section's
/// `params` overrides. A name the layout does not know is `invalid_request` (a misspelt parameter would
/// otherwise be silently replaced by its default: LAYOUTS.md makes invalid parameters errors); values are
/// type-checked here and range-checked by the engine's validation, which names the same paths.
enum ParametersDecoder {
    /// The spec: `type` plus parameters over that layout's defaults.
    static func spec(_ spec: JSONObject, at path: JSONPath) throws(WireError) -> LayoutParameters {
        let type = try spec.required("type", in: path).string(at: path / "type")
        guard let kind = LayoutKind(rawValue: type) else {
            let known = LayoutKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .invalidRequest("unknown layout type \"\(type)\"; known: \(known)", at: path / "type")
        }
        var parameters = LayoutParameters.defaults(for: kind)
        try apply(spec, to: &parameters, at: path)
        return parameters
    }

    /// A section's overrides merged over the spec's parameters: each key present replaces that
    /// parameter's whole value (`sectionInsets` included), the others keep the spec's.
    static func merging(_ overrides: JSONObject, over base: LayoutParameters, at path: JSONPath) throws(WireError) -> LayoutParameters {
        if let type = overrides.optional("type") {
            let name = try type.string(at: path / "type")
            guard name == base.kind.rawValue else {
                throw .invalidRequest("section params must be for the spec's layout \"\(base.kind.rawValue)\", not \"\(name)\"", at: path / "type")
            }
        }
        var parameters = base
        try apply(overrides, to: &parameters, at: path)
        return parameters
    }

    private static func apply(_ object: JSONObject, to parameters: inout LayoutParameters, at path: JSONPath) throws(WireError) {
        for member in object.effectiveMembers where member.key != "type" {
            let key = member.key
            let value = member.value
            let at = path / key
            switch parameters {
            case .columnFlow(var p):
                try set(key, value, on: &p, at: at)
                parameters = .columnFlow(p)
            case .mosaic(var p):
                try set(key, value, on: &p, at: at)
                parameters = .mosaic(p)
            case .waterfall(var p):
                try set(key, value, on: &p, at: at)
                parameters = .waterfall(p)
            case .list(var p):
                try set(key, value, on: &p, at: at)
                parameters = .list(p)
            case .columns(var p):
                try set(key, value, on: &p, at: at)
                parameters = .columns(p)
            case .flow(var p):
                try set(key, value, on: &p, at: at)
                parameters = .flow(p)
            case .justified(var p):
                try set(key, value, on: &p, at: at)
                parameters = .justified(p)
            }
        }
    }

    private static func set(_ key: String, _ value: JSONValue, on p: inout ColumnFlowParameters, at path: JSONPath) throws(WireError) {
        switch key {
        case "minColumnWidth": p.minColumnWidth = try value.number(at: path)
        case "cellHeight": p.cellHeight = try value.number(at: path)
        case "margins": p.margins = try insets(value, at: path)
        case "interitemSpacing": p.interitemSpacing = try value.number(at: path)
        case "lineSpacing": p.lineSpacing = try value.number(at: path)
        case "header": p.headerHeight = try value.number(at: path)
        case "footer": p.footerHeight = try value.number(at: path)
        default: throw unknownParameter(key, of: "columnFlow", at: path)
        }
    }

    private static func set(_ key: String, _ value: JSONValue, on p: inout MosaicParameters, at path: JSONPath) throws(WireError) {
        switch key {
        case "segmentHeight": p.segmentHeight = try value.number(at: path)
        case "spacing": p.spacing = try value.number(at: path)
        case "header": p.headerHeight = try value.number(at: path)
        case "footer": p.footerHeight = try value.number(at: path)
        default: throw unknownParameter(key, of: "mosaic", at: path)
        }
    }

    private static func set(_ key: String, _ value: JSONValue, on p: inout WaterfallParameters, at path: JSONPath) throws(WireError) {
        switch key {
        case "columns": p.columns = try value.integer(at: path)
        case "cellPadding": p.cellPadding = try value.number(at: path)
        case "itemHeight": p.itemHeight = try value.number(at: path)
        // null restores the shared-out width (the model's nil).
        case "columnWidth": p.columnWidth = try optionalNumber(value, at: path)
        case "columnSpacing": p.columnSpacing = try value.number(at: path)
        case "interitemSpacing": p.interitemSpacing = try value.number(at: path)
        case "sectionInsets": p.sectionInsets = try insets(value, at: path)
        case "tieBreak": p.tieBreak = try value.choice(WaterfallParameters.TieBreak.self, at: path)
        case "header": p.headerHeight = try value.number(at: path)
        case "footer": p.footerHeight = try value.number(at: path)
        default: throw unknownParameter(key, of: "waterfall", at: path)
        }
    }

    private static func set(_ key: String, _ value: JSONValue, on p: inout ListParameters, at path: JSONPath) throws(WireError) {
        switch key {
        case "itemHeight": p.itemHeight = try value.number(at: path)
        case "spacing": p.spacing = try value.number(at: path)
        case "sectionInsets": p.sectionInsets = try insets(value, at: path)
        case "header": p.headerHeight = try value.number(at: path)
        case "footer": p.footerHeight = try value.number(at: path)
        case "insetSupplementaryViews": p.insetSupplementaryViews = try value.bool(at: path)
        default: throw unknownParameter(key, of: "list", at: path)
        }
    }

    private static func set(_ key: String, _ value: JSONValue, on p: inout ColumnsParameters, at path: JSONPath) throws(WireError) {
        switch key {
        case "columnCount": p.columnCount = try value.integer(at: path)
        case "columnSpacing": p.columnSpacing = try value.number(at: path)
        case "interitemSpacing": p.interitemSpacing = try value.number(at: path)
        case "itemHeight": p.itemHeight = try value.number(at: path)
        case "sectionInsets": p.sectionInsets = try insets(value, at: path)
        case "header": p.headerHeight = try value.number(at: path)
        case "footer": p.footerHeight = try value.number(at: path)
        case "insetSupplementaryViews": p.insetSupplementaryViews = try value.bool(at: path)
        case "placement": p.placement = try value.choice(ColumnsParameters.Placement.self, at: path)
        default: throw unknownParameter(key, of: "columns", at: path)
        }
    }

    private static func set(_ key: String, _ value: JSONValue, on p: inout FlowParameters, at path: JSONPath) throws(WireError) {
        switch key {
        case "interitemSpacing": p.interitemSpacing = try value.number(at: path)
        // null restores "same as interitemSpacing" (the model's nil).
        case "interspanSpacing": p.interspanSpacing = try optionalNumber(value, at: path)
        case "spanGroupSpacingBefore": p.spanGroupSpacingBefore = try optionalNumber(value, at: path)
        case "spanGroupSpacingAfter": p.spanGroupSpacingAfter = try optionalNumber(value, at: path)
        case "defaultItemSize": p.defaultItemSize = try size(value, at: path)
        case "sectionInsets": p.sectionInsets = try insets(value, at: path)
        case "rowTransform": p.rowTransform = try value.choice(FlowParameters.RowTransform.self, at: path)
        case "fillMaxScale": p.fillMaxScale = try value.number(at: path)
        case "header": p.headerHeight = try value.number(at: path)
        case "footer": p.footerHeight = try value.number(at: path)
        default: throw unknownParameter(key, of: "flow", at: path)
        }
    }

    // MARK: Shared shapes

    /// A number (every side) or `{top,left,bottom,right}` with missing sides 0.
    static func insets(_ value: JSONValue, at path: JSONPath) throws(WireError) -> Insets {
        switch value {
        case .number:
            return Insets(all: try value.number(at: path))
        case .object(let object):
            func side(_ name: String) throws(WireError) -> Double {
                try object.optional(name)?.number(at: path / name) ?? 0
            }
            return Insets(top: try side("top"), left: try side("left"), bottom: try side("bottom"), right: try side("right"))
        default:
            throw .invalidRequest("must be a number or an object {top,left,bottom,right}, not \(value.kind.article)", at: path)
        }
    }

    /// A number, or null for "not set".
    static func optionalNumber(_ value: JSONValue, at path: JSONPath) throws(WireError) -> Double? {
        if value == .null { return nil }
        return try value.number(at: path)
    }

    /// `{width, height}`, both required.
    static func size(_ value: JSONValue, at path: JSONPath) throws(WireError) -> Size {
        let object = try value.object(at: path)
        return Size(
            width: try object.required("width", in: path).number(at: path / "width"),
            height: try object.required("height", in: path).number(at: path / "height")
        )
    }

    /// The parameter names a layout takes, for the error that names a misspelt one.
    static func knownParameters(of layout: String) -> [String] {
        switch layout {
        case "columnFlow": return ["minColumnWidth", "cellHeight", "margins", "interitemSpacing", "lineSpacing", "header", "footer"]
        case "mosaic": return ["segmentHeight", "spacing", "header", "footer"]
        case "waterfall": return ["columns", "cellPadding", "itemHeight", "columnWidth", "columnSpacing", "interitemSpacing", "sectionInsets", "tieBreak", "header", "footer"]
        case "list": return ["itemHeight", "spacing", "sectionInsets", "header", "footer", "insetSupplementaryViews"]
        case "columns": return ["columnCount", "columnSpacing", "interitemSpacing", "itemHeight", "sectionInsets", "header", "footer", "insetSupplementaryViews", "placement"]
        case "flow": return ["interitemSpacing", "interspanSpacing", "spanGroupSpacingBefore", "spanGroupSpacingAfter", "defaultItemSize", "sectionInsets", "rowTransform", "fillMaxScale", "header", "footer"]
        case "justified": return justifiedParameterNames
        default: return []
        }
    }

    private static func unknownParameter(_ key: String, of layout: String, at path: JSONPath) -> WireError {
        let known = knownParameters(of: layout).joined(separator: ", ")
        return .invalidRequest("unknown parameter \"\(key)\" for \(layout); it takes: \(known)", at: path)
    }
}
