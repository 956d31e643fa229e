import LayoutTestKit
import Testing
@testable import LayoutWire

/// A `layout` body with one member replaced or added; the rest is valid.
private func layout(bounds: String = #"{"width":320,"height":480}"#, spec: String = #"{"type":"list"}"#, sections: String = #"[{"count":2}]"#, extra: String = "") -> String {
    #"{"v":1,"id":"t","op":"layout","bounds":\#(bounds),"spec":\#(spec),"sections":\#(sections)\#(extra)}"#
}

private func query(_ target: String) -> String {
    #"{"op":"query","layout":"k",\#(target)}"#
}

/// Every error the decoder raises names its code and, where there is one, the offending field.
@Suite struct DecodingErrorTests {
    static let cases: [(body: String, code: WireError.Code, path: String?)] = [
        // Not JSON, or not one JSON document.
        ("", .invalidJSON, nil),
        ("not json", .invalidJSON, nil),
        (#"{"op":"ping"} x"#, .invalidJSON, nil),
        (#"{"op":"ping""#, .invalidJSON, nil),
        (#"{"op":"ping","x":NaN}"#, .invalidJSON, nil),
        (#"{"op":"ping","x":01}"#, .invalidJSON, nil),
        (#"{"op":"ping","x":"\q"}"#, .invalidJSON, nil),
        (#"{"op":"ping","x":"\ud800"}"#, .invalidJSON, nil),
        // JSON, but not a request.
        ("[1,2]", .invalidRequest, nil),
        (#""ping""#, .invalidRequest, nil),
        ("null", .invalidRequest, nil),
        // Envelope.
        (#"{"v":2,"op":"ping"}"#, .invalidRequest, "v"),
        (#"{"v":"1","op":"ping"}"#, .invalidRequest, "v"),
        (#"{"id":{},"op":"ping"}"#, .invalidRequest, "id"),
        (#"{"id":[1],"op":"ping"}"#, .invalidRequest, "id"),
        (#"{"id":true,"op":"ping"}"#, .invalidRequest, "id"),
        (#"{"v":1}"#, .invalidRequest, "op"),
        (#"{"op":5}"#, .invalidRequest, "op"),
        (#"{"op":"explode"}"#, .unknownOperation, "op"),
        // Layout input.
        (#"{"op":"layout","spec":{"type":"list"},"sections":[]}"#, .invalidRequest, "bounds"),
        (layout(bounds: #"{"height":1}"#), .invalidRequest, "bounds.width"),
        (layout(bounds: #"{"width":"1","height":1}"#), .invalidRequest, "bounds.width"),
        (layout(bounds: #"{"width":1e309,"height":1}"#), .invalidRequest, "bounds.width"),
        (layout(bounds: #"{"width":1,"height":-1e999}"#), .invalidRequest, "bounds.height"),
        (layout(bounds: "[320,480]"), .invalidRequest, "bounds"),
        (#"{"op":"layout","bounds":{"width":1,"height":1},"sections":[]}"#, .invalidRequest, "spec"),
        (layout(spec: #""list""#), .invalidRequest, "spec"),
        (layout(spec: "{}"), .invalidRequest, "spec.type"),
        (layout(spec: #"{"type":"grid"}"#), .invalidRequest, "spec.type"),
        (layout(spec: #"{"type":7}"#), .invalidRequest, "spec.type"),
        (layout(spec: #"{"type":"list","itemHeight":"44"}"#), .invalidRequest, "spec.itemHeight"),
        (layout(spec: #"{"type":"list","itemHeight":1e309}"#), .invalidRequest, "spec.itemHeight"),
        (layout(spec: #"{"type":"list","sectionInsets":"8"}"#), .invalidRequest, "spec.sectionInsets"),
        (layout(spec: #"{"type":"list","sectionInsets":{"top":"1"}}"#), .invalidRequest, "spec.sectionInsets.top"),
        (layout(spec: #"{"type":"list","insetSupplementaryViews":1}"#), .invalidRequest, "spec.insetSupplementaryViews"),
        (layout(spec: #"{"type":"columns","placement":"diagonal"}"#), .invalidRequest, "spec.placement"),
        (layout(spec: #"{"type":"columns","columnCount":2.5}"#), .invalidRequest, "spec.columnCount"),
        (layout(spec: #"{"type":"waterfall","columns":"2"}"#), .invalidRequest, "spec.columns"),
        (layout(spec: #"{"type":"flow","defaultItemSize":{"width":1}}"#), .invalidRequest, "spec.defaultItemSize.height"),
        (layout(spec: #"{"type":"flow","defaultItemSize":60}"#), .invalidRequest, "spec.defaultItemSize"),
        (layout(spec: #"{"type":"flow","rowTransform":3}"#), .invalidRequest, "spec.rowTransform"),
        (layout(spec: #"{"type":"flow","interspanSpacing":"x"}"#), .invalidRequest, "spec.interspanSpacing"),
        (layout(spec: #"{"type":"columnFlow","margins":[1]}"#), .invalidRequest, "spec.margins"),
        (layout(spec: #"{"type":"mosaic","segmentHeight":true}"#), .invalidRequest, "spec.segmentHeight"),
        (layout(extra: #","contentInsets":"x""#), .invalidRequest, "contentInsets"),
        (layout(extra: #","contentInsets":{"left":null,"right":"2"}"#), .invalidRequest, "contentInsets.right"),
        (layout(extra: #","decorations":{"sectionBackground":1}"#), .invalidRequest, "decorations.sectionBackground"),
        (layout(extra: #","decorations":true"#), .invalidRequest, "decorations"),
        (layout(extra: #","return":"some""#), .invalidRequest, "return"),
        (layout(extra: #","return":{"items":[]}"#), .invalidRequest, "return"),
        (layout(extra: #","return":{"rect":{"x":0}}"#), .invalidRequest, "return.rect.y"),
        (layout(extra: #","format":"xml""#), .invalidRequest, "format"),
        (layout(extra: #","layoutDirection":"upsideDown""#), .invalidRequest, "layoutDirection"),
        (layout(extra: #","layoutDirection":1"#), .invalidRequest, "layoutDirection"),
        (#"{"op":"prepare","layout":"k","bounds":{"width":1,"height":1},"spec":{"type":"list"},"sections":[],"layoutDirection":"rtl"}"#, .invalidRequest, "layoutDirection"),
        // Sections.
        (#"{"op":"layout","bounds":{"width":1,"height":1},"spec":{"type":"list"}}"#, .invalidRequest, "sections"),
        (layout(sections: #"{"count":1}"#), .invalidRequest, "sections"),
        (layout(sections: #"[{"count":1},[]]"#), .invalidRequest, "sections[1]"),
        // A misspelt section field is named, not ignored (the items would silently get default sizing).
        (layout(sections: #"[{"count":1},{"aspEctRatios":[1.5]}]"#), .invalidRequest, "sections[1].aspEctRatios"),
        (layout(sections: #"[{"count":-1}]"#), .invalidRequest, "sections[0].count"),
        (layout(sections: #"[{"count":1.5}]"#), .invalidRequest, "sections[0].count"),
        (layout(sections: #"[{"count":"3"}]"#), .invalidRequest, "sections[0].count"),
        (layout(sections: #"[{"count":1e400}]"#), .invalidRequest, "sections[0].count"),
        (layout(sections: #"[{"items":{}}]"#), .invalidRequest, "sections[0].items"),
        (layout(sections: #"[{"items":[{},5]}]"#), .invalidRequest, "sections[0].items[1]"),
        (layout(sections: #"[{"items":[{"height":"12"}]}]"#), .invalidRequest, "sections[0].items[0].height"),
        (layout(sections: #"[{"items":[{"height":1e309}]}]"#), .invalidRequest, "sections[0].items[0].height"),
        (layout(sections: #"[{"items":[{"height":-0.5}]}]"#), .invalidRequest, "sections[0].items[0].height"),
        (layout(sections: #"[{"items":[{"aspectRatio":0}]}]"#), .invalidRequest, "sections[0].items[0].aspectRatio"),
        (layout(sections: #"[{"items":[{"aspectRatio":-1.5}]}]"#), .invalidRequest, "sections[0].items[0].aspectRatio"),
        (layout(sections: #"[{"items":[{"width":-1}]}]"#), .invalidRequest, "sections[0].items[0].width"),
        (layout(sections: #"[{"items":[{"span":"yes"}]}]"#), .invalidRequest, "sections[0].items[0].span"),
        (layout(sections: #"[{"items":[{"id":true}]}]"#), .invalidRequest, "sections[0].items[0].id"),
        (layout(sections: #"[{"items":[{"id":"a"},{"height":1}]}]"#), .invalidRequest, "sections[0].items[1]"),
        (layout(sections: #"[{"items":[{"height":1},{"id":"b"}]}]"#), .invalidRequest, "sections[0].items[1].id"),
        (layout(sections: #"[{"heights":[1,-2]}]"#), .invalidRequest, "sections[0].heights[1]"),
        (layout(sections: #"[{"heights":[1,"a"]}]"#), .invalidRequest, "sections[0].heights[1]"),
        (layout(sections: #"[{"heights":[1,1e400]}]"#), .invalidRequest, "sections[0].heights[1]"),
        (layout(sections: #"[{"heights":[1,true]}]"#), .invalidRequest, "sections[0].heights[1]"),
        (layout(sections: #"[{"heights":{}}]"#), .invalidRequest, "sections[0].heights"),
        // A frame reference with no frames after the body.
        (layout(sections: #"[{"heights":{"frame":1}}]"#), .invalidRequest, "sections[0].heights.frame"),
        (layout(sections: #"[{"widths":{"frame":"1"}}]"#), .invalidRequest, "sections[0].widths.frame"),
        (layout(sections: #"[{"aspectRatios":[1,0]}]"#), .invalidRequest, "sections[0].aspectRatios[1]"),
        (layout(sections: #"[{"widths":[-3]}]"#), .invalidRequest, "sections[0].widths[0]"),
        (layout(sections: #"[{"spans":[true,1]}]"#), .invalidRequest, "sections[0].spans[1]"),
        (layout(sections: #"[{"heights":[1,2],"aspectRatios":[1]}]"#), .invalidRequest, "sections[0].aspectRatios"),
        (layout(sections: #"[{"widths":[1],"heights":[1,2]}]"#), .invalidRequest, "sections[0].heights"),
        (layout(sections: #"[{"items":[{}],"heights":[1]}]"#), .invalidRequest, "sections[0].heights"),
        (layout(sections: #"[{"count":3,"heights":[1,2]}]"#), .invalidRequest, "sections[0].count"),
        (layout(sections: #"[{"count":1,"items":[]}]"#), .invalidRequest, "sections[0].count"),
        (layout(sections: #"[{"count":2,"ids":["a"]}]"#), .invalidRequest, "sections[0].ids"),
        (layout(sections: #"[{"ids":[true]}]"#), .invalidRequest, "sections[0].ids[0]"),
        (layout(sections: #"[{"ids":["a"],"items":[{"id":"b"}]}]"#), .invalidRequest, "sections[0].ids"),
        (layout(sections: #"[{"count":1,"header":"40"}]"#), .invalidRequest, "sections[0].header"),
        (layout(sections: #"[{"count":1,"footer":[]}]"#), .invalidRequest, "sections[0].footer"),
        (layout(sections: #"[{"count":1,"params":5}]"#), .invalidRequest, "sections[0].params"),
        (layout(sections: #"[{"count":1},{"count":1,"params":{"itemHeight":"x"}}]"#), .invalidRequest, "sections[1].params.itemHeight"),
        (layout(sections: #"[{"count":1,"params":{"type":"mosaic"}}]"#), .invalidRequest, "sections[0].params.type"),
        (layout(sections: #"[{"count":1,"params":{"sectionInsets":{"left":true}}}]"#), .invalidRequest, "sections[0].params.sectionInsets.left"),
        // prepare, query, bounds, drop.
        (#"{"op":"prepare","bounds":{"width":1,"height":1},"spec":{"type":"list"},"sections":[]}"#, .invalidRequest, "layout"),
        (#"{"op":"prepare","layout":"","bounds":{"width":1,"height":1},"spec":{"type":"list"},"sections":[]}"#, .invalidRequest, "layout"),
        (#"{"op":"prepare","layout":5,"bounds":{"width":1,"height":1},"spec":{"type":"list"},"sections":[]}"#, .invalidRequest, "layout"),
        (query(#""format":"objects""#), .invalidRequest, nil),
        (query(#""rect":{"x":0,"y":0,"width":1,"height":1},"items":[]"#), .invalidRequest, "items"),
        (query(#""items":[[0]]"#), .invalidRequest, "items[0]"),
        (query(#""items":[[0,1,2]]"#), .invalidRequest, "items[0]"),
        (query(#""items":[[0,-1]]"#), .invalidRequest, "items[0][1]"),
        (query(#""items":[[0,1],[0.5,1]]"#), .invalidRequest, "items[1][0]"),
        (query(#""items":[3]"#), .invalidRequest, "items[0]"),
        (query(#""items":{}"#), .invalidRequest, "items"),
        (query(#""rect":{"x":0,"y":0,"width":-1,"height":1}"#), .invalidRequest, "rect.width"),
        (query(#""rect":{"x":0,"y":0,"width":1}"#), .invalidRequest, "rect.height"),
        (query(#""supplementary":{"kind":"cell"}"#), .invalidRequest, "supplementary.kind"),
        (query(#""supplementary":{"sections":[0]}"#), .invalidRequest, "supplementary.kind"),
        (query(#""supplementary":{"kind":"header","sections":[-1]}"#), .invalidRequest, "supplementary.sections[0]"),
        (query(#""supplementary":{"kind":"header","sections":0}"#), .invalidRequest, "supplementary.sections"),
        (#"{"op":"query","rect":{"x":0,"y":0,"width":1,"height":1}}"#, .invalidRequest, "layout"),
        (#"{"op":"bounds","layout":"k"}"#, .invalidRequest, "bounds"),
        (#"{"op":"bounds","layout":"k","bounds":{"width":1,"height":"2"}}"#, .invalidRequest, "bounds.height"),
        (#"{"op":"drop"}"#, .invalidRequest, "layout"),
        // Limits.
        (#"{"op":"ping","x":"# + String(repeating: "[", count: 80) + String(repeating: "]", count: 80) + "}", .tooLarge, nil),
    ]

    @Test(arguments: cases)
    func reportsCodeAndPath(_ body: String, _ code: WireError.Code, _ path: String?) {
        let error = decodingError(body)
        #expect(error?.code == code, "\(body) → \(String(describing: error))")
        #expect(error?.path == path, "\(body) → \(String(describing: error))")
        #expect(error?.message.isEmpty == false)
    }

    @Test func namesTheExactItemOfALargeSection() {
        var items = Array(repeating: #"{"height":10}"#, count: 40)
        items[17] = #"{"height":-1}"#
        let sections = #"[{"count":1},{"heights":[1]},{"items":[\#(items.joined(separator: ","))]}]"#
        #expect(decodingError(layout(sections: sections))?.path == "sections[2].items[17].height")

        var heights = Array(repeating: "12.5", count: 100)
        heights[63] = "-12.5"
        #expect(decodingError(layout(sections: #"[{"heights":[\#(heights.joined(separator: ","))]}]"#))?.path == "sections[0].heights[63]")
    }

    @Test func aSyntaxErrorOutranksAnEarlierFieldError() {
        // The bad count is read first, but the body is not JSON at all.
        let body = #"{"op":"layout","sections":[{"count":-1}],"bounds":{"width":1,"height":1},"spec":{"type":"list"},"x":[1,}"#
        #expect(decodingError(body)?.code == .invalidJSON)
        let itemBody = #"{"op":"layout","sections":[{"items":[{"height":"x"}]}],"junk":tru}"#
        #expect(decodingError(itemBody)?.code == .invalidJSON)
    }

    @Test func theEnvelopeOutranksTheSections() {
        let body = #"{"v":2,"op":"layout","sections":[{"count":-1}],"bounds":{"width":1,"height":1},"spec":{"type":"list"}}"#
        #expect(decodingError(body)?.path == "v")
        let unknown = #"{"op":"nope","sections":[{"count":-1}]}"#
        #expect(decodingError(unknown)?.code == .unknownOperation)
    }

    @Test func fieldsAnOpDoesNotUseAreNotChecked() throws {
        #expect(try decodeRequest(#"{"op":"ping","sections":[{"count":-1}],"x":1e309,"bounds":"no"}"#).operation.name == .ping)
        #expect(try decodeRequest(#"{"op":"drop","layout":"k","items":[[-1]]}"#).operation.name == .drop)
    }

    @Test func neverCrashesOnTruncatedOrMangledBodies() {
        let body = Array(layout(spec: #"{"type":"flow","defaultItemSize":{"width":2,"height":3},"rowTransform":"fill"}"#,
                                sections: #"[{"items":[{"id":"a","width":10,"height":20},{"id":"b","span":true,"height":40}],"header":5,"params":{"sectionInsets":{"top":1}}},{"heights":[1,2.5,null],"aspectRatios":[null,1.5,2],"ids":[1,2,3]}]"#,
                                extra: #","return":{"rect":{"x":0,"y":0,"width":10,"height":10}},"format":"columns""#).utf8)
        // Every prefix, and every single-byte corruption, yields a result or one error: never a crash.
        for end in 0..<body.count {
            _ = try? RequestDecoder().decode(Array(body[0..<end]))
        }
        var generator = SeededGenerator(seed: 7)
        let replacements: [UInt8] = Array("{}[]\",:0-9.eE \\ntfa\u{7F}".utf8) + [0, 0xC3, 0xFF]
        for index in body.indices {
            var mangled = body
            mangled[index] = replacements.randomElement(using: &generator) ?? 0
            _ = try? RequestDecoder().decode(mangled)
        }
        #expect(throws: Never.self) { try RequestDecoder().decode(body) }
    }
}
