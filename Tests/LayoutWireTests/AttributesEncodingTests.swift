import LayoutTestKit
import Foundation
import LayoutEngine
import Testing
@testable import LayoutWire

/// One element as read back from a reply by Foundation's parser (independent of this module).
private struct ParsedElement: Equatable, CustomStringConvertible {
    var kind: String
    var section: Int
    var item: Int
    var frame: Rect
    var elementKind: String?
    var zIndex: Int?

    init(kind: String, section: Int, item: Int, frame: Rect, elementKind: String? = nil, zIndex: Int? = nil) {
        self.kind = kind
        self.section = section
        self.item = item
        self.frame = frame
        self.elementKind = elementKind
        self.zIndex = zIndex
    }

    /// What the reply must say about `element`.
    init(_ element: LayoutElement, includeDecorationFields: Bool = true) {
        self.init(kind: element.kind.name, section: element.section, item: element.item, frame: element.frame)
        if element.kind == .decoration, includeDecorationFields {
            elementKind = "sectionBackground"
            zIndex = -1
        }
    }

    var description: String { "\(kind) \(section).\(item) \(frame)" }
}

private func double(_ value: Any?) -> Double? {
    if let number = value as? NSNumber { return number.doubleValue }
    return value as? Double
}

private func integer(_ value: Any?) -> Int? {
    guard let value = double(value), let integer = Int(exactly: value) else { return nil }
    return integer
}

/// Parses a reply body with `JSONSerialization` and returns its `result`.
private func result(of body: [UInt8]) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(body))
    let envelope = try #require(object as? [String: Any])
    #expect(integer(envelope["v"]) == 1)
    #expect((envelope["ok"] as? Bool) == true)
    return try #require(envelope["result"] as? [String: Any])
}

/// The attributes of a result, in either format, as parsed elements.
private func elements(in result: [String: Any], format: AttributesFormat) throws -> [ParsedElement] {
    switch format {
    case .objects:
        let list = try #require(result["attributes"] as? [[String: Any]])
        return try list.map { object in
            let frame = Rect(
                x: try #require(double(object["x"])), y: try #require(double(object["y"])),
                width: try #require(double(object["width"])), height: try #require(double(object["height"]))
            )
            return ParsedElement(
                kind: try #require(object["kind"] as? String), section: try #require(integer(object["section"])),
                item: try #require(integer(object["item"])), frame: frame,
                elementKind: object["elementKind"] as? String, zIndex: integer(object["zIndex"])
            )
        }
    case .columns:
        let columns = try #require(result["attributes"] as? [String: Any])
        #expect(Set(columns.keys) == ["kind", "section", "item", "x", "y", "width", "height"])
        let kinds = try #require(columns["kind"] as? [String])
        func numbers(_ name: String) throws -> [Double] {
            let values = try #require(columns[name] as? [Any])
            #expect(values.count == kinds.count, "\(name)")
            return try values.map { try #require(double($0)) }
        }
        let sections = try numbers("section")
        let items = try numbers("item")
        let xs = try numbers("x")
        let ys = try numbers("y")
        let widths = try numbers("width")
        let heights = try numbers("height")
        return kinds.indices.map { i in
            ParsedElement(kind: kinds[i], section: Int(sections[i]), item: Int(items[i]), frame: Rect(x: xs[i], y: ys[i], width: widths[i], height: heights[i]))
        }
    case .binary:
        // Its elements travel in frames after the JSON (BinaryColumnsTests, BinaryFormatTests).
        throw TestFailure("the binary format's JSON holds no elements")
    }
}

extension AttributesFormat {
    /// The formats whose JSON lists the elements.
    static let jsonCases: [AttributesFormat] = [.objects, .columns]
}

/// A list layout with headers, footers, backgrounds, insets, spacing, fractional heights and an empty section.
private func sampleLayout() throws -> PreparedLayout {
    var list = ListParameters()
    list.itemHeight = 44
    list.spacing = 0.5
    list.sectionInsets = Insets(top: 8, left: 16, bottom: 8, right: 16)
    list.insetSupplementaryViews = true
    var generator = SeededGenerator(seed: 21)
    var sections: [Section] = []
    for s in 0..<5 {
        let count = s == 3 ? 0 : Int.random(in: 1...40, using: &generator)
        var items = ItemSizes(count: 0)
        for _ in 0..<count {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: items.append(ItemSizing(height: Double(Int.random(in: 10...300, using: &generator)) / 3))
            case 1: items.append(ItemSizing(aspectRatio: Double(Int.random(in: 5...40, using: &generator)) / 7))
            default: items.append(ItemSizing())
            }
        }
        sections.append(Section(items: items, headerHeight: s.isMultiple(of: 2) ? 30 : nil, footerHeight: s == 1 ? 12.25 : nil))
    }
    let input = LayoutInput(
        bounds: Size(width: 375, height: 667), parameters: .list(list),
        contentInsets: Insets(top: 0, left: 3, bottom: 0, right: 4), sectionBackgrounds: true, sections: sections
    )
    return try PreparedLayout.prepare(input)
}

/// Whether two values are within `ulps` units in the last place: Foundation's parser on Linux is
/// not correctly rounded (it reads `1587.0075757575758` as `…755`), so values it parsed are compared
/// this closely; exactness is checked with a correctly rounded parser in `writesFramesExactly`.
private func isClose(_ a: Double, _ b: Double, ulps: Double = 2) -> Bool {
    a == b || abs(a - b) <= ulps * max(a.ulp, b.ulp)
}

private func isClose(_ a: ParsedElement, _ b: ParsedElement) -> Bool {
    a.kind == b.kind && a.section == b.section && a.item == b.item && a.elementKind == b.elementKind && a.zIndex == b.zIndex
        && isClose(a.frame.x, b.frame.x) && isClose(a.frame.y, b.frame.y)
        && isClose(a.frame.width, b.frame.width) && isClose(a.frame.height, b.frame.height)
}

/// Compares element by element, naming the first difference.
private func expectSame(_ parsed: [ParsedElement], _ expected: [ParsedElement], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(parsed.count == expected.count, sourceLocation: sourceLocation)
    if let index = (0..<min(parsed.count, expected.count)).first(where: { !isClose(parsed[$0], expected[$0]) }) {
        Issue.record("element \(index): \(parsed[index]) ≠ \(expected[index])", sourceLocation: sourceLocation)
    }
}

@Suite struct AttributesEncodingTests {
    @Test(arguments: AttributesFormat.jsonCases)
    func encodesEveryElementInLayoutOrder(_ format: AttributesFormat) throws {
        let layout = try sampleLayout()
        let body = ReplyEncoder.success(id: .string("a"), result: LayoutResult(layout: layout, selection: .all, format: format))
        let parsedResult = try result(of: body)
        var expected: [ParsedElement] = []
        layout.forEachElement { expected.append(ParsedElement($0, includeDecorationFields: format == .objects)) }
        #expect(expected.count == layout.elementCount)
        #expect(expected.contains { $0.kind == "decoration" } && expected.contains { $0.kind == "header" } && expected.contains { $0.kind == "footer" })
        expectSame(try elements(in: parsedResult, format: format), expected)

        let size = try #require(parsedResult["contentSize"] as? [String: Any])
        #expect(double(size["width"]) == layout.contentSize.width)
        #expect(double(size["height"]) == layout.contentSize.height)
        let counts = try #require(parsedResult["counts"] as? [String: Any])
        #expect(integer(counts["sections"]) == 5)
        #expect(integer(counts["items"]) == layout.itemCount)
        #expect(integer(counts["elements"]) == layout.elementCount)
    }

    @Test func writesFramesExactly() throws {
        let layout = try sampleLayout()
        let body = ReplyEncoder.success(id: nil, result: LayoutResult(layout: layout, selection: .all, format: .columns))
        // The text of every number, read by the standard library's correctly rounded parser.
        guard case .object(let reply) = try parseJSON(body), case .object(let result)? = reply["result"],
              case .object(let columns)? = result["attributes"] else {
            Issue.record("unexpected reply shape")
            return
        }
        func values(_ name: String) throws -> [Double] {
            guard case .array(let items)? = columns[name] else { throw TestFailure("no \(name)") }
            return try items.map { item in
                guard case .number(let number) = item, let value = Double(number.text) else { throw TestFailure("\(name): \(item)") }
                return value
            }
        }
        var expected: [LayoutElement] = []
        layout.forEachElement { expected.append($0) }
        #expect(try values("x").map(\.bitPattern) == expected.map(\.frame.x.bitPattern))
        #expect(try values("y").map(\.bitPattern) == expected.map(\.frame.y.bitPattern))
        #expect(try values("width").map(\.bitPattern) == expected.map(\.frame.width.bitPattern))
        #expect(try values("height").map(\.bitPattern) == expected.map(\.frame.height.bitPattern))
    }

    @Test(arguments: AttributesFormat.jsonCases)
    func encodesARectQuery(_ format: AttributesFormat) throws {
        let layout = try sampleLayout()
        let rect = Rect(x: 0, y: layout.contentSize.height / 3, width: 100, height: 250)
        let body = ReplyEncoder.success(id: nil, result: QueryResult(version: 4, layout: layout, selection: .rect(rect), format: format))
        let parsedResult = try result(of: body)
        #expect(integer(parsedResult["version"]) == 4)
        let expected = layout.elementsByScanning(in: rect).map { ParsedElement($0, includeDecorationFields: format == .objects) }
        #expect(!expected.isEmpty)
        expectSame(try elements(in: parsedResult, format: format), expected)
    }

    @Test func listsRequestedItemsOnceInLayoutOrderSkippingMissingOnes() throws {
        let layout = try sampleLayout()
        let paths = [
            ItemIndexPath(section: 2, item: 0), ItemIndexPath(section: 0, item: 1), ItemIndexPath(section: 2, item: 0),
            ItemIndexPath(section: 3, item: 0), ItemIndexPath(section: 99, item: 0), ItemIndexPath(section: 0, item: 0),
        ]
        let body = ReplyEncoder.success(id: nil, result: QueryResult(version: 1, layout: layout, selection: .items(paths), format: .objects))
        let expected = try [(0, 0), (0, 1), (2, 0)].map { section, item in
            ParsedElement(try #require(layout.cell(item: item, section: section)))
        }
        #expect(try elements(in: try result(of: body), format: .objects) == expected)
    }

    @Test func listsSupplementaryElementsOfTheGivenSections() throws {
        let layout = try sampleLayout()
        let headers = ReplyEncoder.success(id: nil, result: QueryResult(version: 1, layout: layout, selection: .supplementary(.header, sections: [4, 1, 0]), format: .objects))
        let expectedHeaders = try [0, 4].map { ParsedElement(try #require(layout.supplementaryElement(.header, section: $0))) }
        #expect(try elements(in: try result(of: headers), format: .objects) == expectedHeaders)

        let backgrounds = ReplyEncoder.success(id: nil, result: QueryResult(version: 1, layout: layout, selection: .supplementary(.decoration, sections: nil), format: .objects))
        let parsed = try elements(in: try result(of: backgrounds), format: .objects)
        #expect(parsed.count == 5)
        #expect(parsed.allSatisfy { $0.kind == "decoration" && $0.elementKind == "sectionBackground" && $0.zIndex == -1 })
    }

    @Test(arguments: AttributesFormat.jsonCases)
    func encodesAnEmptyLayout(_ format: AttributesFormat) throws {
        let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 10, height: 10), parameters: .defaults(for: .list), sections: []))
        let parsedResult = try result(of: ReplyEncoder.success(id: nil, result: LayoutResult(layout: layout, selection: .all, format: format)))
        #expect(try elements(in: parsedResult, format: format).isEmpty)
    }

    @Test func omitsAttributesWhenNoneAreAskedFor() throws {
        let layout = try sampleLayout()
        let parsedResult = try result(of: ReplyEncoder.success(id: nil, result: LayoutResult(layout: layout, selection: nil, format: .objects)))
        #expect(parsedResult["attributes"] == nil)
        #expect(parsedResult["contentSize"] != nil)
    }

    @Test func theBulkPathMatchesTheEngineForALargeLayout() throws {
        var list = ListParameters()
        list.spacing = 1.5
        let heights = (0..<200_000).map { Double($0 % 97) / 4 }
        let input = LayoutInput(
            bounds: Size(width: 1024, height: 768), parameters: .list(list), sectionBackgrounds: true,
            sections: [Section(items: try #require(ItemSizes(count: heights.count, heights: heights)), headerHeight: 20)]
        )
        let layout = try PreparedLayout.prepare(input)
        var writer = JSONWriter()
        var expected = JSONWriter()
        Attributes(layout: layout, selection: .all, format: .objects).encode(into: &writer)
        // The reference: the general per-element path (a rect covering everything takes it).
        let everything = Rect(x: -1, y: -1, width: 2000, height: layout.contentSize.height + 2)
        Attributes(layout: layout, selection: .rect(everything), format: .objects).encode(into: &expected)
        let actual = writer.finish()
        let reference = expected.finish()
        #expect(actual == reference)
    }
}

@Suite struct LayoutRoundTripTests {
    /// Request text → engine → reply text, checked against frames worked out by hand from LAYOUTS.md.
    @Test func aListRequestComesBackAsTheFramesTheSpecGives() throws {
        let body = #"{"v":1,"id":"e2e","op":"layout","bounds":{"width":100,"height":50},"spec":{"type":"list","spacing":10,"sectionInsets":5,"header":30},"sections":[{"items":[{"height":20},{"aspectRatio":1.5},{}]}]}"#
        guard case .layout(let request) = try decodeRequest(body).operation else {
            Issue.record("not a layout request")
            return
        }
        let layout = try PreparedLayout.prepare(request.input)
        let reply = ReplyEncoder.success(id: .string("e2e"), result: LayoutResult(layout: layout, selection: request.attributes, format: request.format))
        let text = String(decoding: reply, as: UTF8.self)
        // Header 0..30 at full width; items start after the top inset (35), 90 wide (100 - 5 - 5),
        // 10 apart: height 20; 90 / 1.5 = 60; the default 36. The section ends after the bottom inset.
        let expected = #"{"v":1,"id":"e2e","ok":true,"result":{"contentSize":{"width":100,"height":176},"counts":{"sections":1,"items":3,"elements":4},"attributes":["#
            + #"{"kind":"header","section":0,"item":0,"x":0,"y":0,"width":100,"height":30},"#
            + #"{"kind":"cell","section":0,"item":0,"x":5,"y":35,"width":90,"height":20},"#
            + #"{"kind":"cell","section":0,"item":1,"x":5,"y":65,"width":90,"height":60},"#
            + #"{"kind":"cell","section":0,"item":2,"x":5,"y":135,"width":90,"height":36}]}}"#
        #expect(text == expected)
    }
}
