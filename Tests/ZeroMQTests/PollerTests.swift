#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import ZeroMQ

@Suite struct PollerTests {
    @Test func pollWakesWhenASocketHasAMessage() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .tcp)
        var poller = Poller()
        let token = poller.register(pull, for: .readable)

        #expect(try poller.poll(timeout: .zero).isEmpty)
        try push.send("work")
        let ready = try poller.poll(timeout: .milliseconds(Int(testTimeoutMilliseconds)))
        #expect(ready == [Poller.Ready(token: token, events: .readable)])
        #expect(try pull.events.contains(.readable))
        #expect(try pull.receiveString(flags: .dontWait) == "work")
        #expect(try poller.poll(timeout: .zero).isEmpty)
    }

    @Test func pollWatchesRawFileDescriptorsBesideSockets() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .inproc)

        var poller = Poller()
        let socketToken = poller.register(pull)
        let pipeToken = poller.register(fileDescriptor: ends[0], for: .readable)
        #expect(try poller.poll(timeout: .zero).isEmpty)

        var byte: UInt8 = 42
        try #require(write(ends[1], &byte, 1) == 1)
        let pipeOnly = try poller.poll(timeout: .milliseconds(Int(testTimeoutMilliseconds)))
        #expect(pipeOnly.map(\.token) == [pipeToken])
        #expect(pipeOnly.first?.events.contains(.readable) == true)

        // The pipe stays readable until read, so now both are ready, in registration order.
        try push.send("wake")
        let both = try poller.poll(timeout: .milliseconds(Int(testTimeoutMilliseconds)))
        #expect(both.map(\.token) == [socketToken, pipeToken])

        poller.unregister(pipeToken)
        #expect(poller.count == 1)
        #expect(try poller.poll(timeout: .zero).map(\.token) == [socketToken])
    }

    @Test func pollReportsWritableSockets() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .inproc)
        var poller = Poller()
        let token = poller.register(push, for: [.readable, .writable])
        #expect(try poller.poll(timeout: .milliseconds(Int(testTimeoutMilliseconds))) == [
            Poller.Ready(token: token, events: .writable),
        ])
        poller.update(token, for: .readable)
        #expect(try poller.poll(timeout: .zero).isEmpty)
    }

    @Test func pollTimesOutWithNothingReady() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        try pull.bind(Transport.inproc.bindableEndpoint())
        var poller = Poller()
        poller.register(pull)
        #expect(try poller.poll(timeout: .milliseconds(20)).isEmpty)
    }

    @Test func pollingAClosedSocketThrows() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        var poller = Poller()
        poller.register(pull)
        pull.close()
        let error = #expect(throws: ZeroMQError.self) { try poller.poll(timeout: .zero) }
        #expect(error?.code == .notSocket)
    }

    @Test(arguments: [
        (Duration?.none, -1),
        (.zero, 0),
        (.milliseconds(-5), 0),
        (.microseconds(1), 1),
        (.microseconds(1_500), 2),
        (.seconds(2), 2_000),
    ])
    func timeoutsBecomeWholeMillisecondsRoundedUp(timeout: Duration?, milliseconds: Int) {
        #expect(Poller.milliseconds(timeout) == milliseconds)
    }
}
