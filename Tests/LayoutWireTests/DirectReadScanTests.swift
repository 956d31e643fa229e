import Testing
@testable import LayoutWire

/// The scans a cluster reads direct reads and `route` with (docs/PROTOCOL.md §11).
@Suite struct DirectReadScanTests {
    @Test(arguments: [
        (#"{"op":"query","epoch":17,"minVersion":3}"#, UInt64(17) as UInt64?, 3 as Int?),
        // Whole numbers in any spelling, escaped names, the last duplicate winning.
        (#"{"\u0065poch":1.7e1,"minVersion":3.0,"minVersion":4}"#, 17, 4),
        (#"{"op":"query","items":[[0,0]]}"#, nil, nil),
    ])
    func fieldsAreReadWhereverTheyStand(body: String, epoch: UInt64?, minVersion: Int?) throws {
        let fields = try Array(body.utf8).withUnsafeBytes { try DirectReadFields(scanning: $0) }
        #expect(fields == DirectReadFields(epoch: epoch, minVersion: minVersion))
    }

    @Test(arguments: [
        (#"{"epoch":-1}"#, "epoch"), (#"{"epoch":"7"}"#, "epoch"), (#"{"minVersion":2.5}"#, "minVersion"), (#"{"minVersion":null}"#, "minVersion"),
    ])
    func aMistypedFieldIsAnInvalidRequestAtItsPath(body: String, path: String) {
        #expect(throws: WireError(.invalidRequest, "must be an integer >= 0", path: path)) {
            try Array(body.utf8).withUnsafeBytes { try DirectReadFields(scanning: $0) }
        }
    }

    @Test func aBodyThatIsNotJSONGivesNoFields() throws {
        let fields = try Array(#"{"epoch":3,"#.utf8).withUnsafeBytes { try DirectReadFields(scanning: $0) }
        #expect(fields.minVersion == nil)
    }

    @Test func routeIsFoundByItsOpAlone() {
        func scan(_ body: String) -> RouteRequest? { Array(body.utf8).withUnsafeBytes { RouteRequest(scanning: $0) } }
        #expect(scan(#"{"v":1,"op":"route"}"#) == RouteRequest())
        #expect(scan(#"{"layout":"feed","op":"r\u006fute"}"#) == RouteRequest(layout: "feed"))
        #expect(scan(#"{"op":"query","layout":"feed"}"#) == nil)
        #expect(scan(#"{"op":"route","op":"list"}"#) == nil)
        #expect(scan("route") == nil)
    }
}
