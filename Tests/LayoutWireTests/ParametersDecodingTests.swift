import LayoutEngine
import Testing
@testable import LayoutWire

@Suite struct SpecDecodingTests {
    func parameters(_ spec: String) throws -> LayoutParameters {
        try layoutInput(layoutBody(spec: spec, sections: "[]")).parameters
    }

    @Test func everyLayoutTakesItsDefaults() throws {
        for kind in LayoutKind.allCases {
            #expect(try parameters(#"{"type":"\#(kind.rawValue)"}"#) == .defaults(for: kind))
        }
    }

    @Test func readsColumnFlowParameters() throws {
        var expected = ColumnFlowParameters()
        expected.minColumnWidth = 250
        expected.cellHeight = 80
        expected.margins = Insets(top: 1, left: 2, bottom: 3, right: 4)
        expected.interitemSpacing = 5
        expected.lineSpacing = 6
        expected.headerHeight = 7
        expected.footerHeight = 8
        let spec = #"{"type":"columnFlow","minColumnWidth":250,"cellHeight":80,"margins":{"top":1,"left":2,"bottom":3,"right":4},"interitemSpacing":5,"lineSpacing":6,"header":7,"footer":8}"#
        #expect(try parameters(spec) == .columnFlow(expected))
    }

    @Test func readsMosaicParameters() throws {
        var expected = MosaicParameters()
        expected.segmentHeight = 150
        expected.spacing = 2
        #expect(try parameters(#"{"type":"mosaic","segmentHeight":150,"spacing":2}"#) == .mosaic(expected))
    }

    @Test func readsWaterfallParameters() throws {
        var expected = WaterfallParameters()
        expected.columns = 3
        expected.cellPadding = 4
        expected.itemHeight = 120
        #expect(try parameters(#"{"type":"waterfall","columns":3,"cellPadding":4,"itemHeight":120}"#) == .waterfall(expected))
    }

    @Test func readsWaterfallSpacingParameters() throws {
        var expected = WaterfallParameters()
        expected.columnWidth = 150
        expected.columnSpacing = 34
        expected.interitemSpacing = 32
        expected.sectionInsets = Insets(top: 16, left: 16, bottom: 10)
        expected.tieBreak = .last
        let spec = #"{"type":"waterfall","columnWidth":150,"columnSpacing":34,"interitemSpacing":32,"sectionInsets":{"top":16,"left":16,"bottom":10},"tieBreak":"last"}"#
        #expect(try parameters(spec) == .waterfall(expected))
        // null is the shared-out width, as when it is left out.
        #expect(try parameters(#"{"type":"waterfall","columnWidth":null}"#) == .waterfall(WaterfallParameters()))
        do {
            _ = try parameters(#"{"type":"waterfall","tieBreak":"right"}"#)
            Issue.record("an unknown tieBreak was accepted")
        } catch {
            #expect((error as? WireError)?.path == "spec.tieBreak")
        }
    }

    @Test func readsListParameters() throws {
        var expected = ListParameters()
        expected.itemHeight = 44
        expected.spacing = 1
        expected.sectionInsets = Insets(all: 16)
        expected.headerHeight = 30
        expected.footerHeight = 10
        expected.insetSupplementaryViews = true
        let spec = #"{"type":"list","itemHeight":44,"spacing":1,"sectionInsets":16,"header":30,"footer":10,"insetSupplementaryViews":true}"#
        #expect(try parameters(spec) == .list(expected))
    }

    @Test func readsColumnsParameters() throws {
        var expected = ColumnsParameters()
        expected.columnCount = 0
        expected.columnSpacing = 4
        expected.interitemSpacing = 6
        expected.itemHeight = 70
        expected.sectionInsets = Insets(top: 2, left: 0, bottom: 0, right: 5)
        expected.insetSupplementaryViews = true
        expected.placement = .shortestFirst
        let spec = #"{"type":"columns","columnCount":0,"columnSpacing":4,"interitemSpacing":6,"itemHeight":70,"sectionInsets":{"top":2,"right":5},"insetSupplementaryViews":true,"placement":"shortestFirst"}"#
        #expect(try parameters(spec) == .columns(expected))
    }

    @Test func readsFlowParameters() throws {
        var expected = FlowParameters()
        expected.interitemSpacing = 10
        expected.interspanSpacing = 12
        expected.spanGroupSpacingBefore = 14
        expected.spanGroupSpacingAfter = nil
        expected.defaultItemSize = Size(width: 80, height: 40)
        expected.sectionInsets = Insets(all: 3)
        expected.rowTransform = .fill
        expected.fillMaxScale = 1.5
        let spec = #"{"type":"flow","interitemSpacing":10,"interspanSpacing":12,"spanGroupSpacingBefore":14,"spanGroupSpacingAfter":null,"defaultItemSize":{"width":80,"height":40},"sectionInsets":3,"rowTransform":"fill","fillMaxScale":1.5}"#
        #expect(try parameters(spec) == .flow(expected))
    }

    @Test func rejectsNamesTheLayoutDoesNotHave() throws {
        // A parameter of another layout is as wrong as a misspelt one: it would silently do nothing.
        #expect(throws: WireError.self) { try parameters(#"{"type":"mosaic","columns":2}"#) }
    }

    @Test func leavesRangeChecksToTheEngineWithTheSamePath() throws {
        let input = try layoutInput(layoutBody(spec: #"{"type":"list","itemHeight":-4}"#, sections: "[]"))
        #expect(throws: LayoutError(.invalidRequest, "must be a number from 0 to 1000000000.0, not -4.0", path: "spec.itemHeight")) {
            try input.validate()
        }
    }
}

@Suite struct SectionParametersTests {
    @Test func mergesOverridesOverTheSpec() throws {
        let spec = #"{"type":"list","itemHeight":44,"spacing":2,"sectionInsets":{"top":10,"left":10,"bottom":10,"right":10},"header":30}"#
        let sections = #"[{"count":1},{"count":1,"params":{"spacing":8,"sectionInsets":{"left":4}}},{"count":1,"params":{}}]"#
        let input = try layoutInput(layoutBody(spec: spec, sections: sections))
        var merged = ListParameters()
        merged.itemHeight = 44
        merged.spacing = 8
        // A section override replaces the whole value: the other sides are 0, not the spec's 10.
        merged.sectionInsets = Insets(top: 0, left: 4, bottom: 0, right: 0)
        merged.headerHeight = 30
        #expect(input.sections[0].parameters == nil)
        #expect(input.sections[1].parameters == .list(merged))
        #expect(input.sections[2].parameters == nil)
        #expect(input.parameters(forSection: 0) == input.parameters)
    }

    @Test func aSectionsOwnHeaderOutranksItsParams() throws {
        let spec = #"{"type":"list","header":30,"footer":5}"#
        let sections = #"[{"count":1,"header":12,"params":{"header":20,"footer":9}},{"count":1,"params":{"header":20}},{"count":1}]"#
        let input = try layoutInput(layoutBody(spec: spec, sections: sections))
        #expect(input.headerHeight(forSection: 0) == 12)
        #expect(input.footerHeight(forSection: 0) == 9)
        #expect(input.headerHeight(forSection: 1) == 20)
        #expect(input.footerHeight(forSection: 1) == 5)
        #expect(input.headerHeight(forSection: 2) == 30)
    }

    @Test func mergesWhenTheSpecComesAfterTheSections() throws {
        let body = #"{"op":"layout","sections":[{"count":1,"params":{"columnCount":3}}],"bounds":{"width":100,"height":100},"spec":{"type":"columns","itemHeight":20}}"#
        var merged = ColumnsParameters()
        merged.columnCount = 3
        merged.itemHeight = 20
        #expect(try layoutInput(body).sections[0].parameters == .columns(merged))
    }

    @Test func acceptsTheSpecsOwnTypeInOverrides() throws {
        let input = try layoutInput(layoutBody(sections: #"[{"count":1,"params":{"type":"list","itemHeight":9}}]"#))
        var merged = ListParameters()
        merged.itemHeight = 9
        #expect(input.sections[0].parameters == .list(merged))
    }
}

@Suite struct UnknownParameterTests {
    @Test func aMisspeltSpecParameterIsRejectedWithItsPathAndTheKnownNames() {
        do {
            _ = try decodeRequest(#"{"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"waterfall","cellPading":4},"sections":[]}"#)
            Issue.record("a misspelt parameter was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.path == "spec.cellPading")
            #expect(error.message.contains("cellPadding"))
        }
    }

    @Test func aMisspeltSectionOverrideIsRejectedWithItsPath() {
        do {
            _ = try decodeRequest(#"{"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"list"},"sections":[{"count":1,"params":{"itemHieght":3}}]}"#)
            Issue.record("a misspelt override was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.path == "sections[0].params.itemHieght")
        }
    }

    @Test func everyKnownNameIsAccepted() throws {
        for kind in LayoutKind.allCases {
            for name in ParametersDecoder.knownParameters(of: kind.rawValue) {
                let value: String
                switch name {
                case "margins", "sectionInsets": value = "2"
                case "defaultItemSize": value = #"{"width":10,"height":10}"#
                case "insetSupplementaryViews", "showWidows": value = "true"
                case "widowLayoutStyle": value = #""justify""#
                case "placement": value = #""shortestFirst""#
                case "rowTransform": value = #""center""#
                case "tieBreak": value = #""last""#
                case "columns", "columnCount": value = "2"
                default: value = "1"
                }
                let body = #"{"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"\#(kind.rawValue)","\#(name)":\#(value)},"sections":[]}"#
                _ = try decodeRequest(body)
            }
        }
    }
}
