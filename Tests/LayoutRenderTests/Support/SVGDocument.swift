/// A minimal XML reader for the SVG that LayoutRender writes: elements with double-quoted attributes,
/// self-closing tags, character data with the five predefined entities. Anything else (comments,
/// processing instructions, CDATA, single quotes) is a parse error, so the test also checks that the
/// output stays within this subset.
struct SVGNode {
    var name: String
    var attributes: [String: String]
    var children: [SVGNode] = []
    var text = ""

    /// `name`'s value as a number; nil when it is missing or not a number.
    func number(_ name: String) -> Double? { attributes[name].flatMap(Double.init) }

    /// Every node below this one, depth first.
    var descendants: [SVGNode] { children.flatMap { [$0] + $0.descendants } }

    /// The children named `name`.
    func children(named name: String) -> [SVGNode] { children.filter { $0.name == name } }
}

struct SVGParseError: Error, CustomStringConvertible {
    var description: String
}

enum SVGDocument {
    /// The root element of `text`.
    static func parse(_ text: String) throws -> SVGNode {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        let root = try parser.element()
        parser.skipWhitespace()
        guard parser.atEnd else { throw SVGParseError(description: "text after the root element at \(parser.offset)") }
        return root
    }

    private struct Parser {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset >= bytes.count }

        mutating func skipWhitespace() {
            while !atEnd, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(bytes[offset]) {
                offset += 1
            }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard !atEnd, bytes[offset] == byte else {
                throw SVGParseError(description: "expected '\(Character(Unicode.Scalar(byte)))' at \(offset)")
            }
            offset += 1
        }

        mutating func name() throws -> String {
            let start = offset
            while !atEnd, bytes[offset] == UInt8(ascii: "-") || bytes[offset] == UInt8(ascii: ":")
                || (bytes[offset] >= UInt8(ascii: "a") && bytes[offset] <= UInt8(ascii: "z"))
                || (bytes[offset] >= UInt8(ascii: "A") && bytes[offset] <= UInt8(ascii: "Z")) {
                offset += 1
            }
            guard offset > start else { throw SVGParseError(description: "expected a name at \(offset)") }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        /// Character data up to `terminator`, entities decoded.
        mutating func characters(until terminator: UInt8) throws -> String {
            let start = offset
            while !atEnd, bytes[offset] != terminator {
                guard bytes[offset] != UInt8(ascii: "<") else { throw SVGParseError(description: "'<' in text at \(offset)") }
                offset += 1
            }
            guard !atEnd else { throw SVGParseError(description: "unterminated text from \(start)") }
            return try Self.decodeEntities(String(decoding: bytes[start..<offset], as: UTF8.self))
        }

        static func decodeEntities(_ text: String) throws -> String {
            var result = ""
            var rest = Substring(text)
            while let ampersand = rest.firstIndex(of: "&") {
                result += rest[..<ampersand]
                guard let semicolon = rest[ampersand...].firstIndex(of: ";") else {
                    throw SVGParseError(description: "unterminated entity in \(text)")
                }
                switch rest[rest.index(after: ampersand)..<semicolon] {
                case "amp": result += "&"
                case "lt": result += "<"
                case "gt": result += ">"
                case "quot": result += "\""
                case "apos": result += "'"
                case let entity: throw SVGParseError(description: "unknown entity &\(entity);")
                }
                rest = rest[rest.index(after: semicolon)...]
            }
            return result + rest
        }

        mutating func element() throws -> SVGNode {
            try expect(UInt8(ascii: "<"))
            var node = SVGNode(name: try name(), attributes: [:])
            while true {
                skipWhitespace()
                guard !atEnd else { throw SVGParseError(description: "unterminated tag <\(node.name)>") }
                if bytes[offset] == UInt8(ascii: "/") {
                    offset += 1
                    try expect(UInt8(ascii: ">"))
                    return node
                }
                if bytes[offset] == UInt8(ascii: ">") {
                    offset += 1
                    break
                }
                let attribute = try name()
                try expect(UInt8(ascii: "="))
                try expect(UInt8(ascii: "\""))
                let value = try characters(until: UInt8(ascii: "\""))
                offset += 1
                guard node.attributes.updateValue(value, forKey: attribute) == nil else {
                    throw SVGParseError(description: "attribute \(attribute) repeated in <\(node.name)>")
                }
            }
            while true {
                node.text += try characters(until: UInt8(ascii: "<"))
                if offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "/") {
                    offset += 2
                    let closing = try name()
                    guard closing == node.name else {
                        throw SVGParseError(description: "</\(closing)> closes <\(node.name)> at \(offset)")
                    }
                    skipWhitespace()
                    try expect(UInt8(ascii: ">"))
                    return node
                }
                node.children.append(try element())
            }
        }
    }
}
