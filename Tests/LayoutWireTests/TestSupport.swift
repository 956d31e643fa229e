import LayoutEngine
@testable import LayoutWire

/// Decodes a request body given as text.
func decodeRequest(_ json: String) throws(WireError) -> Request {
    try RequestDecoder().decode(Array(json.utf8))
}

/// The error a body decodes to, or nil when it decodes.
func decodingError(_ json: String) -> WireError? {
    do {
        _ = try decodeRequest(json)
        return nil
    } catch {
        return error
    }
}

/// Parses a whole document with the reader.
func parseJSON(_ json: String) throws(WireError) -> JSONValue {
    let bytes = Array(json.utf8)
    return try parseJSON(bytes)
}

func parseJSON(_ bytes: [UInt8]) throws(WireError) -> JSONValue {
    let result: Result<JSONValue, WireError> = bytes.withUnsafeBytes { buffer in
        do throws(WireError) { return .success(try JSONReader.parse(buffer)) } catch { return .failure(error) }
    }
    return try result.get()
}

/// The first syntax error of a document, if any.
func syntaxError(_ bytes: [UInt8]) -> WireError? {
    bytes.withUnsafeBytes { JSONReader.syntaxError(in: $0) }
}

/// A `layout` request around the given sections and spec (JSON fragments).
func layoutBody(spec: String = #"{"type":"list"}"#, sections: String, extra: String = "") -> String {
    #"{"v":1,"id":"t","op":"layout","bounds":{"width":320,"height":480},"spec":\#(spec),"sections":\#(sections)\#(extra)}"#
}

/// The layout input of a `layout` request, or the test fails.
func layoutInput(_ json: String) throws -> LayoutInput {
    guard case .layout(let request) = try decodeRequest(json).operation else {
        throw TestFailure("not a layout request")
    }
    return request.input
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Every item's sizing, for comparing `ItemSizes` whose columns hold NaN ("not set").
func sizings(_ sizes: ItemSizes) -> [ItemSizing] {
    (0..<sizes.count).map { sizes[$0] }
}

