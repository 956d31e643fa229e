import ArgumentParser
import LayoutClient

/// Parsers for the comma-separated values of layoutctl's options.
enum ArgumentParsing {
    /// `x,y,w,h`.
    static func rect(_ text: String) throws -> QueryRect {
        let values = try numbers(text, count: 4, shape: "x,y,width,height")
        return QueryRect(x: values[0], y: values[1], width: values[2], height: values[3])
    }

    /// `x,y`.
    static func point(_ text: String) throws -> (x: Double, y: Double) {
        let values = try numbers(text, count: 2, shape: "x,y")
        return (values[0], values[1])
    }

    /// `section,item`.
    static func item(_ text: String) throws -> ItemLocation {
        let values = try integers(text, shape: "section,item")
        guard values.count == 2 else { throw ValidationError("'\(text)' is not section,item") }
        return ItemLocation(section: values[0], item: values[1])
    }

    /// `tcp://a:5555` or `tcp://a:5555,tcp://b:5555`: front endpoints, in the order to fail over between them.
    static func endpoints(_ text: String) throws -> [String] {
        let endpoints = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !endpoints.contains(where: \.isEmpty) else {
            throw ValidationError("an endpoint, or a comma-separated list of them, without an empty one")
        }
        return endpoints
    }

    /// `auto` or `off`: whether queries go to the owner of their layout in a cluster.
    static func directReads(_ text: String) throws -> DirectReads {
        switch text {
        case "auto": return .automaticByKey
        case "off": return .off
        default: throw ValidationError("'\(text)' is not auto or off")
        }
    }

    /// `0,1,2`.
    static func integers(_ text: String, shape: String = "a comma-separated list of integers") throws -> [Int] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
            guard let value = Int(part.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("'\(text)' is not \(shape)")
            }
            return value
        }
    }

    /// `none`, `all` or a rect `x,y,w,h`.
    static func returnedElements(_ text: String) throws -> ReturnedElements {
        switch text {
        case "none": .nothing
        case "all": .all
        default: .inRect(try rect(text))
        }
    }

    /// `objects` or `columns`.
    static func format(_ text: String) throws -> ReplyFormat {
        guard let format = ReplyFormat(rawValue: text) else { throw ValidationError("--format is objects or columns") }
        return format
    }

    /// `header`, `footer` or `decoration`.
    static func supplementaryKind(_ text: String) throws -> SupplementaryKind {
        guard let kind = SupplementaryKind(rawValue: text) else {
            throw ValidationError("--supplementary is header, footer or decoration")
        }
        return kind
    }

    private static func numbers(_ text: String, count: Int, shape: String) throws -> [Double] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == count, values.count == count, values.allSatisfy(\.isFinite) else {
            throw ValidationError("'\(text)' is not \(shape)")
        }
        return values
    }
}
