import Testing
import LayoutServer

/// `InlineAnswerer`, the bench's work floor's seam: it answers what the daemon's I/O thread answers
/// itself, as the pool would, and nothing else.
@Suite struct InlineAnswererTests {
    private func reply(_ body: ReplyBody?) throws -> [String: Any] {
        try TestDaemon.object(try #require(body, "answered inline").bytes)
    }

    @Test func answersPingsAndSmallQueriesAsAWorkerDoesAndLeavesTheRestAlone() throws {
        let answerer = InlineAnswerer()
        let prepare = mosaicJob(key: "feed", count: 1_000)
        #expect(answerer.answer(RequestBody(Array(prepare.utf8))) == nil, "a prepare goes to the pool")
        #expect(try TestDaemon.object(answerer.run(RequestBody(Array(prepare.utf8))).bytes).ok)

        #expect(try reply(answerer.answer(RequestBody(Array(#"{"v":1,"id":"p","op":"ping"}"#.utf8)))).ok)
        let small = Array(#"{"v":1,"id":"s","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":300}}"#.utf8)
        let inline = try #require(answerer.answer(RequestBody(small)))
        #expect(inline.bytes == answerer.run(RequestBody(small)).bytes, "the same reply as a worker's")
        #expect((try reply(inline).result["attributes"] as? [[String: Any]])?.count == 3)

        let all = #"{"v":1,"id":"a","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":1000000}}"#
        #expect(answerer.answer(RequestBody(Array(all.utf8))) == nil, "over the bound: for the pool")
        // A body that does not decode is answered where it arrived, as the daemon answers it.
        let broken = #"{"v":1,"id":"b","op":"query","layout":"feed","rect":{"x":0}}"#
        #expect(try reply(answerer.answer(RequestBody(Array(broken.utf8)))).errorCode == "invalid_request")
    }
}
