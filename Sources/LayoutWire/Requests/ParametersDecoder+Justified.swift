import LayoutEngine

/// The `justified` layout's parameters, by flickr's option names (LAYOUTS.md `justified`). flickr's
/// `false` for "off" is accepted where it has one (`maxNumRows` takes null), and so is null.
extension ParametersDecoder {
    static let justifiedParameterNames = [
        "targetRowHeight", "targetRowHeightTolerance", "boxSpacing", "maxNumRows", "forceAspectRatio", "showWidows",
        "fullWidthBreakoutRowCadence", "widowLayoutStyle", "sectionInsets", "header", "footer",
    ]

    static func set(_ key: String, _ value: JSONValue, on p: inout JustifiedParameters, at path: JSONPath) throws(WireError) {
        switch key {
        case "targetRowHeight": p.targetRowHeight = try value.number(at: path)
        case "targetRowHeightTolerance": p.targetRowHeightTolerance = try value.number(at: path)
        case "boxSpacing": p.boxSpacing = try boxSpacing(value, at: path)
        case "maxNumRows": p.maxNumRows = value == .null ? nil : try value.integer(at: path)
        case "forceAspectRatio": p.forceAspectRatio = try numberOrFalse(value, at: path)
        case "showWidows": p.showWidows = try value.bool(at: path)
        case "fullWidthBreakoutRowCadence":
            p.fullWidthBreakoutRowCadence = try numberOrFalse(value, at: path).map { number throws(WireError) in
                guard let cadence = Int(exactly: number) else { throw .invalidRequest("must be false or an integer, not \(number)", at: path) }
                return cadence
            }
        case "widowLayoutStyle": p.widowLayoutStyle = try value.choice(JustifiedParameters.WidowLayoutStyle.self, at: path)
        case "sectionInsets": p.sectionInsets = try insets(value, at: path)
        case "header": p.headerHeight = try value.number(at: path)
        case "footer": p.footerHeight = try value.number(at: path)
        default:
            let known = justifiedParameterNames.joined(separator: ", ")
            throw .invalidRequest("unknown parameter \"\(key)\" for justified; it takes: \(known)", at: path)
        }
    }

    /// A number (both ways) or `{horizontal, vertical}` with a missing one 0, as insets.
    static func boxSpacing(_ value: JSONValue, at path: JSONPath) throws(WireError) -> JustifiedParameters.BoxSpacing {
        switch value {
        case .number:
            return JustifiedParameters.BoxSpacing(all: try value.number(at: path))
        case .object(let object):
            func axis(_ name: String) throws(WireError) -> Double {
                try object.optional(name)?.number(at: path / name) ?? 0
            }
            return JustifiedParameters.BoxSpacing(horizontal: try axis("horizontal"), vertical: try axis("vertical"))
        default:
            throw .invalidRequest("must be a number or an object {horizontal,vertical}, not \(value.kind.article)", at: path)
        }
    }

    /// flickr's `false` (or null) for off, else a number.
    static func numberOrFalse(_ value: JSONValue, at path: JSONPath) throws(WireError) -> Double? {
        switch value {
        case .null, .bool(false): return nil
        case .number: return try value.number(at: path)
        default: throw .invalidRequest("must be false or a number, not \(value == .bool(true) ? "true" : value.kind.article)", at: path)
        }
    }
}
