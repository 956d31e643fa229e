import Foundation
import LayoutServer
import Testing
@testable import LayoutCluster

/// Which direct reads a worker's I/O thread answers where they arrive (`answerDirectAtOnce`): the cheap
/// ones a daemon's `FrontDesk` answers, with the same answer the pool would give; the rest go to the pool.
@Suite struct DirectReadAtOnceTests {
    @Test func cheapReadsAreAnsweredAtOnceAsThePoolWouldAnswerThemAndOthersAreNot() throws {
        let (_, worker) = SimulatedCluster.withLeasedWorker(items: 2_000)
        let epoch = try #require(worker.store.summary(forKey: LayoutKey(name: "feed"))?.epoch)
        func job(_ body: String) throws -> ClusterJobHandler.Job {
            try #require(worker.directJob(body), "\(body) decodes")
        }
        func query(_ rect: String, _ extra: String = "") -> String {
            #"{"v":1,"id":"q","op":"query","layout":"feed","epoch":\#(epoch),"rect":\#(rect)\#(extra)}"#
        }
        let cheap = [
            #"{"v":1,"id":"p","op":"ping"}"#,
            #"{"v":1,"id":"l","op":"list","layout":"feed","epoch":\#(epoch)}"#,
            query(#"{"x":0,"y":0,"width":320,"height":400}"#),
        ]
        for body in cheap {
            let atOnce = try #require(worker.jobs.answerDirectAtOnce(try job(body)), "\(body) is answered at once")
            // A ping's reply carries the uptime, which moved between the two.
            if !body.contains("ping") {
                #expect(atOnce.body.bytes == worker.jobs.answer(try job(body))?.body.bytes, "as the pool answers \(body)")
            }
            #expect(atOnce.errorCode == nil)
        }
        // Every cell (over the bound), a pinned query, and an index query go to the pool.
        let forThePool = [
            query(#"{"x":0,"y":0,"width":320,"height":10000000}"#),
            query(#"{"x":0,"y":0,"width":320,"height":400}"#, #","pin":{"headers":true}"#),
            #"{"v":1,"id":"i","op":"query","layout":"feed","epoch":\#(epoch),"items":[[0,0]]}"#,
        ]
        for body in forThePool {
            #expect(worker.jobs.answerDirectAtOnce(try job(body)) == nil, "\(body) goes to the pool")
        }
        // A read of another epoch is cheap too, and answered `moved` at once, as the pool would.
        let moved = try #require(worker.jobs.answerDirectAtOnce(try job(query(#"{"x":0,"y":0,"width":320,"height":400}"#).replacingOccurrences(of: "\(epoch)", with: "\(epoch + 1)"))))
        #expect(moved.errorCode == "moved")
    }
}
