import LayoutEngine
import Testing
@testable import LayoutWire

/// A query's `rect` is read straight from the bytes; whatever it holds, the outcome must be the one
/// the generic route gives (parse to a `JSONValue`, then `RequestFields.rect`), error words included.
@Suite struct TopLevelRectTests {
    static let rects = [
        #"{"x":1,"y":2,"width":3,"height":4}"#,
        #"{"height":4.5,"width":3,"y":-2,"x":1e2,"extra":[1,{"a":null}]}"#,
        #"{"x":1,"x":5,"y":2,"width":3,"height":4}"#,
        #"{"x":1,"y":2,"width":3,"height":4,"height":-1}"#,
        #"{"y":"bad","x":1e999,"width":1,"height":1}"#,
        #"{"x":1,"y":2,"width":-3,"height":-4}"#,
        #"{"x":1,"y":2,"height":4}"#,
        #"{"x":null,"y":0,"width":1,"height":1}"#,
        #"{"x":0,"y":0,"width":{"w":1},"height":1}"#,
        #"{}"#,
        #"[1,2,3,4]"#,
        #""r""#,
        #"5"#,
        #"true"#,
        #"{"x":0,"y":0,"width":1,"height":1e400}"#,
    ]

    @Test(arguments: rects)
    func givesTheGenericRouteOutcome(_ rect: String) throws {
        let body = #"{"op":"query","layout":"k","rect":\#(rect)}"#
        let reference: Result<Rect, WireError> = Result { () throws(WireError) in
            try RequestFields.rect(try parseJSON(rect), at: .root / "rect")
        }
        switch reference {
        case .success(let expected):
            guard case .query(let query) = try decodeRequest(body).operation else {
                Issue.record("not a query")
                return
            }
            #expect(query.selection == .rect(expected))
        case .failure(let expected):
            #expect(decodingError(body) == expected)
        }
    }

    @Test func aNullRectIsAnAbsentOne() {
        let error = decodingError(#"{"op":"query","layout":"k","rect":null}"#)
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.hasPrefix("a query needs one of") == true)
    }

    @Test func aSyntaxErrorInsideTheRectIsInvalidJSON() {
        #expect(decodingError(#"{"op":"query","layout":"k","rect":{"x":1,}}"#)?.code == .invalidJSON)
        #expect(decodingError(#"{"op":"query","layout":"k","rect":{"x":01,"y":0,"width":1,"height":1}}"#)?.code == .invalidJSON)
    }

    @Test func theRectIsCheckedOnlyAfterTheTargetsAreCounted() {
        // Both a (bad) rect and items: the choice of target is the error, not the rect.
        let error = decodingError(#"{"op":"query","layout":"k","rect":"bad","items":[[0,0]]}"#)
        #expect(error?.path == "items")
    }
}
