import LayoutTestKit
import LayoutEngine
import Testing
@testable import LayoutWire

@Suite struct SectionDecodingTests {
    func sections(_ json: String) throws -> [Section] {
        try layoutInput(layoutBody(sections: json)).sections
    }

    @Test func objectsAndColumnsDecodeToEqualSizes() throws {
        let objects = try sections(#"[{"items":[{"height":120},{"aspectRatio":1.5},{"width":90,"height":60},{"span":true,"height":40},{},{"aspectRatio":2,"height":8}]}]"#)
        let columns = try sections(#"[{"heights":[120,null,60,40,null,8],"aspectRatios":[null,1.5,null,null,null,2],"widths":[null,null,90,null,null,null],"spans":[false,false,false,true,false,false]}]"#)
        let expected = [
            ItemSizing(height: 120), ItemSizing(aspectRatio: 1.5), ItemSizing(height: 60, width: 90),
            ItemSizing(height: 40, isSpan: true), ItemSizing(), ItemSizing(height: 8, aspectRatio: 2),
        ]
        #expect(sizings(objects[0].items) == expected)
        #expect(sizings(columns[0].items) == expected)
    }

    @Test func plainHeightsGiveIdenticalColumns() throws {
        var generator = SeededGenerator(seed: 3)
        let heights = (0..<500).map { _ in Double(Int.random(in: 0...100_000, using: &generator)) / 8 }
        let texts = heights.map { "\($0)" }
        let objects = try sections(#"[{"items":[\#(texts.map { #"{"height":\#($0)}"# }.joined(separator: ","))]}]"#)
        let columns = try sections(#"[{"heights":[\#(texts.joined(separator: ","))]}]"#)
        #expect(objects[0].items == columns[0].items)
        #expect(objects[0].items.heights == heights)
        #expect(objects[0].items.aspectRatios.isEmpty)
    }

    @Test func aColumnOfNullsIsNoColumn() throws {
        let decoded = try sections(#"[{"heights":[1,2],"aspectRatios":[null,null]}]"#)
        #expect(decoded[0].items == ItemSizes(count: 2, heights: [1, 2]))
    }

    @Test func countAloneGivesDefaultSizing() throws {
        let decoded = try sections(#"[{"count":1000,"header":40,"footer":20},{}]"#)
        #expect(decoded[0].items == ItemSizes(count: 1000))
        #expect(decoded[0].headerHeight == 40)
        #expect(decoded[0].footerHeight == 20)
        #expect(decoded[1].items.count == 0)
    }

    @Test func countMayRestateTheItemCount() throws {
        #expect(try sections(#"[{"count":2,"heights":[1,2]}]"#)[0].items.count == 2)
        #expect(try sections(#"[{"count":0,"items":[]}]"#)[0].items.count == 0)
    }

    @Test func readsIdsFromItemsOrFromAColumn() throws {
        let fromItems = try sections(#"[{"items":[{"id":"a","height":1},{"id":7}]}]"#)
        #expect(fromItems[0].ids == [.string("a"), .integer(7)])
        let fromColumn = try sections(#"[{"ids":["a",7,"\u00e9"],"heights":[1,2,3]}]"#)
        #expect(fromColumn[0].ids == [.string("a"), .integer(7), .string("é")])
        let onlyIds = try sections(#"[{"ids":["x","y"]}]"#)
        #expect(onlyIds[0].items.count == 2)
        #expect(try sections(#"[{"items":[{"height":1}]}]"#)[0].ids == nil)
    }

    @Test func ignoresUnknownItemMembers() throws {
        let decoded = try sections(#"[{"items":[{"colour":"red","height":3,"meta":{"a":[1,2]},"aspect":9}]}]"#)
        #expect(sizings(decoded[0].items) == [ItemSizing(height: 3)])
    }

    @Test func readsMembersWithEscapesOrSpacesAsTheSameNames() throws {
        let decoded = try sections(#"[{"items":[{"h\u0065ight" : 3},{ "width" :4 , "span" : true }]}]"#)
        #expect(sizings(decoded[0].items) == [ItemSizing(height: 3), ItemSizing(width: 4, isSpan: true)])
    }

    @Test func readsNumbersNearTheEndOfTheBodyExactly() throws {
        // The inline number path needs bytes to spare; the last values of a body take the general path.
        for text in ["0.1", "123.456", "9007199254740993", "1e2", "-0", "0.30000000000000004", "5e-324"] {
            let body = #"{"op":"layout","bounds":{"width":1,"height":1},"spec":{"type":"list"},"sections":[{"aspectRatios":[\#(text)"#
            let isPositive = (Double(text) ?? 0) > 0
            let decoded = decodingError(body + "]}]}")
            if isPositive {
                #expect(decoded == nil, "\(text)")
                let input = try layoutInput(body + "]}]}")
                #expect(input.sections[0].items.aspectRatios.first?.bitPattern == Double(text)?.bitPattern, "\(text)")
            } else {
                #expect(decoded?.path == "sections[0].aspectRatios[0]", "\(text)")
            }
        }
    }

    @Test func readsRandomColumnValuesExactly() throws {
        var generator = SeededGenerator(seed: 11)
        var texts: [String] = []
        for _ in 0..<3000 {
            let integer = String(Int.random(in: 0...999_999_999, using: &generator))
            let fraction = (0..<Int.random(in: 0...9, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            var text = fraction.isEmpty ? integer : integer + "." + fraction
            if Int.random(in: 0..<10, using: &generator) == 0 { text += "e\(Int.random(in: -20...20, using: &generator))" }
            texts.append(text)
        }
        let decoded = try sections(#"[{"heights":[\#(texts.joined(separator: ","))]}]"#)
        let heights = decoded[0].items.heights
        try #require(heights.count == texts.count)
        let mismatch = texts.indices.first { Double(texts[$0])?.bitPattern != heights[$0].bitPattern }
        #expect(mismatch == nil, "\(mismatch.map { "\(texts[$0]) read as \(heights[$0])" } ?? "")")
    }
}
