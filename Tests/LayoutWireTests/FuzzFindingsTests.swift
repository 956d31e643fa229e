import LayoutEngine
import Testing
@testable import LayoutWire

/// What the fuzzer (Fuzz/, docs/FUZZING.md) found, each input kept as it was found or minimized.
@Suite struct FuzzFindingsTests {
    /// Found after 5.3 million inputs: with `id` given twice, the decoder took the last (PROTOCOL.md: the
    /// last member of a name wins) but `requestID(in:)`, which error and `busy` replies echo, took the first.
    @Test(arguments: [
        #"{"v":1,"id":13,"op":"diff","layout":"columnzjj","%rev":1,"id":7,"format":"colugnsjj","%rev":1,"id":7,"format":"jcojjjjjjjjjjjjjjjFlow","sections":[{"ids":["z","olunzFlow","sey"]},{"count":0}]}"#,
        #"{"v":1,"id":1,"id":2,"op":"ping"}"#,
        #"{"v":1,"id":"a","op":"ping","id":"b"}"#,
        #"{"v":1,"id":"a","op":"ping","id":null}"#,
    ])
    func theIdAnErrorReplyEchoesIsTheLastOneAsInTheDecoder(body: String) throws {
        let request = try decodeRequest(body)
        #expect(RequestDecoder.requestID(in: Array(body.utf8)) == request.id)
    }

    @Test func aFailingBodyWithTwoIdsEchoesTheLastReadBeforeTheFault() {
        #expect(RequestDecoder.requestID(in: Array(#"{"v":1,"id":1,"op":"nope","id":2}"#.utf8)) == .number("2"))
        #expect(RequestDecoder.requestID(in: Array(#"{"id":"first","x":1,"id":"second","y":[1,"#.utf8)) == .string("second"))
        #expect(RequestDecoder.requestID(in: Array(#"{"id":"first","x":[1,"id":"inner"]"#.utf8)) == .string("first"))
    }
}
