import LayoutEngine
import Testing
@testable import LayoutWire

@Suite struct RequestEnvelopeTests {
    @Test func decodesPing() throws {
        let request = try decodeRequest(#"{"v":1,"id":"a","op":"ping"}"#)
        #expect(request.id == .string("a"))
        #expect(request.operation.name == .ping)
    }

    @Test func versionDefaultsToOne() throws {
        #expect(try decodeRequest(#"{"op":"list"}"#).operation.name == .list)
    }

    @Test func keepsTheExactTextOfNumericIds() throws {
        #expect(try decodeRequest(#"{"id":12345678901234567890,"op":"ping"}"#).id == .number("12345678901234567890"))
        #expect(try decodeRequest(#"{"id":1.50,"op":"ping"}"#).id == .number("1.50"))
        #expect(try decodeRequest(#"{"id":-0,"op":"ping"}"#).id == .number("-0"))
    }

    @Test func treatsMissingAndNullIdsAlike() throws {
        #expect(try decodeRequest(#"{"op":"ping"}"#).id == nil)
        #expect(try decodeRequest(#"{"id":null,"op":"ping"}"#).id == nil)
    }

    @Test func acceptsMembersInAnyOrder() throws {
        let input = try layoutInput(#"{"sections":[{"count":2}],"spec":{"type":"list"},"bounds":{"width":10,"height":20},"op":"layout"}"#)
        #expect(input.sections.count == 1)
        #expect(input.sections[0].items.count == 2)
    }

    @Test func ignoresUnknownMembers() throws {
        let body = #"{"op":"ping","future":{"deep":[1,2,{"x":"y"}]},"also":null}"#
        #expect(try decodeRequest(body).operation.name == .ping)
    }

    @Test func acceptsWhitespaceEverywhere() throws {
        let body = " {\n \"op\" : \"layout\" , \"bounds\" : { \"width\" : 100 , \"height\" : 50 } , \"spec\" : { \"type\" : \"list\" } ,"
            + " \"sections\" : [ { \"items\" : [ { \"height\" : 12 } , { \"height\" : 1.5 } ] , \"footer\" : 0 } ] } \n"
        let input = try layoutInput(body)
        #expect(input.sections[0].items.heights == [12, 1.5])
    }

    @Test func recognisesMemberNamesWrittenWithEscapes() throws {
        // "op", "layout" and "rect" with some letters as \u escapes: the same members.
        let body = #"{"\u006fp":"query","l\u0061yout":"k","re\u0063t":{"x":1,"y":2,"width":3,"height":4}}"#
        guard case .query(let query) = try decodeRequest(body).operation else {
            Issue.record("not a query")
            return
        }
        #expect(query.layout == "k")
        #expect(query.selection == .rect(Rect(x: 1, y: 2, width: 3, height: 4)))
    }

    @Test func aRepeatedMemberKeepsItsLastValue() throws {
        #expect(try decodeRequest(#"{"op":"nope","op":"ping"}"#).operation.name == .ping)
        #expect(try decodeRequest(#"{"op":"ping","id":1,"id":"b"}"#).id == .string("b"))
        #expect(decodingError(#"{"op":"ping","op":"nope"}"#)?.code == .unknownOperation)
        let wrongType = decodingError(#"{"op":"ping","op":5}"#)
        #expect(wrongType?.code == .invalidRequest)
        #expect(wrongType?.path == "op")
    }

    @Test func namesThatOnlyShareALengthWithAMemberAreIgnored() throws {
        // Same lengths as "id", "rect", "layout", "sections", "contentInsets", "layoutDirection": unknown, so skipped.
        let body = #"{"op":"ping","ix":[1],"rext":{},"layouu":5,"sectionz":"x","contentInsetz":null,"layoutDirectiom":7}"#
        #expect(try decodeRequest(body).operation.name == .ping)
    }
}

@Suite struct LayoutOperationTests {
    @Test func decodesALayoutRequest() throws {
        let body = #"""
        {"v":1,"id":7,"op":"layout","bounds":{"x":5,"y":900,"width":1024,"height":768},
         "spec":{"type":"list","itemHeight":44,"spacing":2},
         "contentInsets":{"left":10,"right":20},
         "decorations":{"sectionBackground":true},
         "sections":[{"count":3,"header":40,"footer":20},{"items":[{"height":10}]}],
         "return":{"rect":{"x":0,"y":10,"width":100,"height":200}},"format":"columns"}
        """#
        guard case .layout(let request) = try decodeRequest(body).operation else {
            Issue.record("not a layout request")
            return
        }
        var list = ListParameters()
        list.itemHeight = 44
        list.spacing = 2
        let expected = LayoutInput(
            bounds: Size(width: 1024, height: 768),
            parameters: .list(list),
            contentInsets: Insets(top: 0, left: 10, bottom: 0, right: 20),
            sectionBackgrounds: true,
            sections: [
                Section(count: 3, headerHeight: 40, footerHeight: 20),
                Section(items: try #require(ItemSizes(count: 1, heights: [10]))),
            ]
        )
        #expect(request.input == expected)
        #expect(request.attributes == .rect(Rect(x: 0, y: 10, width: 100, height: 200)))
        #expect(request.format == .columns)
    }

    @Test func layoutReturnsAllObjectsByDefault() throws {
        guard case .layout(let request) = try decodeRequest(layoutBody(sections: "[]")).operation else {
            Issue.record("not a layout request")
            return
        }
        #expect(request.attributes == .all)
        #expect(request.format == .objects)
        #expect(request.input.sections.isEmpty)
    }

    @Test func returnNoneSelectsNothing() throws {
        guard case .layout(let request) = try decodeRequest(layoutBody(sections: "[]", extra: #","return":"none""#)).operation else {
            Issue.record("not a layout request")
            return
        }
        #expect(request.attributes == nil)
    }

    @Test func decodesAPrepareRequest() throws {
        let body = #"{"op":"prepare","layout":"feed-7","bounds":{"width":10,"height":10},"spec":{"type":"mosaic"},"sections":[{"count":1}]}"#
        guard case .prepare(let request) = try decodeRequest(body).operation else {
            Issue.record("not a prepare request")
            return
        }
        #expect(request.layout == "feed-7")
        #expect(request.attributes == nil)
        #expect(request.input.parameters == .mosaic(MosaicParameters()))
    }

    @Test func prepareCanAskForAttributes() throws {
        let body = #"{"op":"prepare","layout":"k","return":"all","bounds":{"width":10,"height":10},"spec":{"type":"list"},"sections":[]}"#
        guard case .prepare(let request) = try decodeRequest(body).operation else {
            Issue.record("not a prepare request")
            return
        }
        #expect(request.attributes == .all)
    }

    @Test func layoutDirectionIsLeftToRightUnlessGiven() throws {
        #expect(try layoutInput(layoutBody(sections: "[]")).layoutDirection == .leftToRight)
        #expect(try layoutInput(layoutBody(sections: "[]", extra: #","layoutDirection":null"#)).layoutDirection == .leftToRight)
        #expect(try layoutInput(layoutBody(sections: "[]", extra: #","layoutDirection":"leftToRight""#)).layoutDirection == .leftToRight)
        #expect(try layoutInput(layoutBody(sections: "[]", extra: #","layoutDirection":"rightToLeft""#)).layoutDirection == .rightToLeft)
        // A name with escapes takes the slow route to the same member.
        #expect(try layoutInput(layoutBody(sections: "[]", extra: #","layout\u0044irection":"rightToLeft""#)).layoutDirection == .rightToLeft)
        let prepare = #"{"layoutDirection":"rightToLeft","op":"prepare","layout":"k","bounds":{"width":10,"height":10},"spec":{"type":"flow"},"sections":[]}"#
        guard case .prepare(let request) = try decodeRequest(prepare).operation else {
            Issue.record("not a prepare request")
            return
        }
        #expect(request.input.layoutDirection == .rightToLeft)
    }

    @Test func aBadLayoutDirectionListsTheAllowedValues() {
        let error = decodingError(layoutBody(sections: "[]", extra: #","layoutDirection":"RTL""#))
        #expect(error?.message == #""RTL" is not one of "leftToRight", "rightToLeft""#)
    }

    @Test func decodesSectionsThatComeBeforeTheOp() throws {
        let body = #"{"sections":[{"heights":[1,2,3]}],"bounds":{"width":10,"height":10},"spec":{"type":"list"},"op":"prepare","layout":"k"}"#
        guard case .prepare(let request) = try decodeRequest(body).operation else {
            Issue.record("not a prepare request")
            return
        }
        #expect(request.input.sections[0].items.heights == [1, 2, 3])
    }
}

@Suite struct KeptLayoutOperationTests {
    @Test func decodesARectQuery() throws {
        let body = #"{"op":"query","layout":"k","rect":{"x":1,"y":2,"width":3,"height":4},"format":"columns"}"#
        guard case .query(let query) = try decodeRequest(body).operation else {
            Issue.record("not a query")
            return
        }
        #expect(query == QueryRequest(layout: "k", selection: .rect(Rect(x: 1, y: 2, width: 3, height: 4)), format: .columns))
    }

    @Test func decodesAnItemsQuery() throws {
        let body = #"{"op":"query","layout":"k","items":[[0,3],[2,1],[ 1 , 0 ]]}"#
        guard case .query(let query) = try decodeRequest(body).operation else {
            Issue.record("not a query")
            return
        }
        let paths = [ItemIndexPath(section: 0, item: 3), ItemIndexPath(section: 2, item: 1), ItemIndexPath(section: 1, item: 0)]
        #expect(query.selection == .items(paths))
    }

    @Test func decodesItemsThatComeBeforeTheOp() throws {
        let body = #"{"items":[[4,5]],"layout":"k","op":"query"}"#
        guard case .query(let query) = try decodeRequest(body).operation else {
            Issue.record("not a query")
            return
        }
        #expect(query.selection == .items([ItemIndexPath(section: 4, item: 5)]))
    }

    @Test func decodesASupplementaryQuery() throws {
        let body = #"{"op":"query","layout":"k","supplementary":{"kind":"header","sections":[2,0]}}"#
        guard case .query(let query) = try decodeRequest(body).operation else {
            Issue.record("not a query")
            return
        }
        #expect(query.selection == .supplementary(.header, sections: [2, 0]))
        let all = #"{"op":"query","layout":"k","supplementary":{"kind":"sectionBackground"}}"#
        guard case .query(let allQuery) = try decodeRequest(all).operation else {
            Issue.record("not a query")
            return
        }
        #expect(allQuery.selection == .supplementary(.decoration, sections: nil))
    }

    @Test func decodesBounds() throws {
        let body = #"{"op":"bounds","layout":"k","bounds":{"x":0,"y":1200.5,"width":375,"height":812}}"#
        guard case .bounds(let request) = try decodeRequest(body).operation else {
            Issue.record("not a bounds request")
            return
        }
        #expect(request == BoundsRequest(layout: "k", bounds: Size(width: 375, height: 812)))
    }

    @Test func decodesDropAndList() throws {
        guard case .drop(let drop) = try decodeRequest(#"{"op":"drop","layout":"gone"}"#).operation else {
            Issue.record("not a drop request")
            return
        }
        #expect(drop.layout == "gone")
        #expect(try decodeRequest(#"{"op":"list","id":"x"}"#).operation.name == .list)
    }

    @Test func decodesUpdatesIntoTypedOperations() throws {
        let body = #"{"op":"update","layout":"k","ifVersion":3,"updates":[{"delete":[0,1]},{"item":{"id":"n","height":7},"insert":[1,0]},{"move":[[0,2],[0,0]]},{"reload":[0,3],"item":{"aspectRatio":2}},{"deleteSection":2},{"moveSection":[1,0]},{"insertSection":1,"section":{"count":2,"params":{"itemHeight":9}}}]}"#
        guard case .update(let update) = try decodeRequest(body).operation else {
            Issue.record("not an update")
            return
        }
        #expect(update.layout == "k")
        #expect(update.ifVersion == 3)
        let batch = try update.batch(over: .list(ListParameters()))
        var overridden = ListParameters()
        overridden.itemHeight = 9
        #expect(batch.operations == [
            .delete(ItemPath(section: 0, item: 1)),
            .insert(ItemPath(section: 1, item: 0), ItemSizing(height: 7), id: .string("n")),
            .move(from: ItemPath(section: 0, item: 2), to: ItemPath(section: 0, item: 0)),
            .reload(ItemPath(section: 0, item: 3), ItemSizing(aspectRatio: 2), id: nil),
            .deleteSection(2),
            .moveSection(from: 1, to: 0),
            .insertSection(1, Section(items: ItemSizes(count: 2), parameters: .list(overridden))),
        ])
    }

    @Test func rejectsMalformedUpdatesWithTheirPaths() {
        let cases: [(String, String)] = [
            (#"{"op":"update","layout":"k","updates":[{"delete":[0]}]}"#, "updates[0].delete"),
            (#"{"op":"update","layout":"k","updates":[{"delete":[0,1],"insert":[0,0]}]}"#, "updates[0]"),
            (#"{"op":"update","layout":"k","updates":[{}]}"#, "updates[0]"),
            (#"{"op":"update","layout":"k","updates":[{"insert":[0,0],"item":{"height":-2}}]}"#, "updates[0].item.height"),
            (#"{"op":"update","layout":"k","updates":[{"insertSection":0}]}"#, "updates[0].section"),
            (#"{"op":"update","layout":"k","updates":[{"move":[[0,1],[0,-1]]}]}"#, "updates[0].move[1][1]"),
            (#"{"op":"update","layout":"k","ifVersion":-1,"updates":[]}"#, "ifVersion"),
            (#"{"op":"update","layout":"k"}"#, "updates"),
        ]
        for (body, path) in cases {
            do {
                _ = try decodeRequest(body)
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.code == .invalidRequest, "\(body)")
                #expect(error.path == path, "\(body)")
            }
        }
    }

    @Test func decodesDiffSectionsAndResolvesTheirParams() throws {
        let diff = #"{"op":"diff","layout":"k","sections":[{"ids":["a","b"],"heights":[1,2]},{"ids":[],"params":{"spacing":4}}]}"#
        guard case .diff(let request) = try decodeRequest(diff).operation else {
            Issue.record("not a diff")
            return
        }
        #expect(request.layout == "k")
        let sections = try request.sections(over: .list(ListParameters()))
        #expect(sections.count == 2)
        #expect(sections[0].ids == [.string("a"), .string("b")])
        #expect(sections[0].items.height(at: 1) == 2)
        var spaced = ListParameters()
        spaced.spacing = 4
        #expect(sections[1].parameters == .list(spaced))
    }
}

@Suite struct RequestIDExtractionTests {
    @Test func findsTheIdOfABodyThatFailsLater() {
        #expect(RequestDecoder.requestID(in: Array(#"{"v":1,"id":"r-9","op":"nope","x":[1,"#.utf8)) == .string("r-9"))
        #expect(RequestDecoder.requestID(in: Array(#"{"op":"layout","id":42.0,"sections":"#.utf8)) == .number("42.0"))
    }

    @Test func findsNothingWhereThereIsNoUsableId() {
        #expect(RequestDecoder.requestID(in: Array(#"{"op":"ping"}"#.utf8)) == nil)
        #expect(RequestDecoder.requestID(in: Array(#"{"id":{"a":1}}"#.utf8)) == nil)
        #expect(RequestDecoder.requestID(in: Array("not json".utf8)) == nil)
        #expect(RequestDecoder.requestID(in: Array(#"{"x":[1,2"#.utf8)) == nil)
        #expect(RequestDecoder.requestID(in: []) == nil)
        #expect(RequestDecoder.requestID(in: Array(#"["id","a"]"#.utf8)) == nil)
    }
}

@Suite struct OutOfRangeIDTests {
    @Test func anIdBeyondDoubleRangeIsInvalidAndNotEchoed() {
        do {
            _ = try decodeRequest(#"{"v":1,"id":1e309,"op":"ping"}"#)
            Issue.record("accepted an id of 1e309")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.path == "id")
        }
        #expect(RequestDecoder.requestID(in: Array(#"{"id":1e309,"op":"x"}"#.utf8)) == nil)
    }
}

@Suite struct OperationNameMatchingTests {
    /// The op named by the string token `text` (JSON, quotes included), matched by its bytes.
    private func matched(_ text: String) throws -> OperationName? {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            let token = try reader.readStringToken()
            return OperationName(token, in: reader)
        }
    }

    @Test func everyOpNameIsMatchedByItsBytes() throws {
        for name in OperationName.allCases {
            #expect(try matched("\"\(name.rawValue)\"") == name)
        }
    }

    @Test func nearMissesAndEscapesAreNotMatched() throws {
        for text in [#""pinG""#, #""lists""#, #""quer""#, #""""#, #""prepare ""#, #""\u0070ing""#] {
            #expect(try matched(text) == nil)
        }
        // Escaped, it still decodes: by the slower route.
        #expect(try decodeRequest(#"{"op":"\u0070ing"}"#).operation.name == .ping)
    }
}
