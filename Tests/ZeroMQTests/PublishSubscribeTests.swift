import Testing
import ZeroMQ

@Suite struct PublishSubscribeTests {
    @Test(arguments: Transport.allCases)
    func subscriberOnlyReceivesMatchingTopics(over transport: Transport) throws {
        let context = try Context()
        let publisher = try makeSocket(.pub, in: context)
        let subscriber = try makeSocket(.sub, in: context)
        try subscriber.set(.receiveTimeout, 100)
        try subscriber.subscribe("batch:")
        try link(publisher, subscriber, over: transport)

        // PUB drops everything until the subscription has travelled, so publish in rounds until one
        // arrives. Each round publishes the unwanted topic first: without filtering it would come first.
        var first: [[UInt8]]?
        for _ in 0..<100 where first == nil {
            try publisher.send(multipart: [bytes("invalidated:feed"), bytes("{}")])
            try publisher.send(multipart: [bytes("batch:feed"), bytes("{\"v\":1}")])
            first = try subscriber.receiveMultipart()
        }
        #expect(first == [bytes("batch:feed"), bytes("{\"v\":1}")])
    }

    /// A SUB's subscribe reaches the XPUB as one frame: 0x01 then the prefix. Without `xpubVerbose` the
    /// XPUB hides a subscription it already has; with it, every one comes through.
    @Test(arguments: [true, false])
    func xpubSeesSubscriptions(verbose: Bool) throws {
        let context = try Context()
        let publisher = try makeSocket(.xpub, in: context)
        if verbose { try publisher.set(.xpubVerbose, true) }
        let first = try makeSocket(.sub, in: context)
        let second = try makeSocket(.sub, in: context)
        try link(publisher, first, over: .tcp)
        try second.connect(publisher.lastEndpoint)

        try first.subscribe("batch:feed-7")
        #expect(try publisher.receiveBytes() == [1] + bytes("batch:feed-7"))
        // The second subscriber repeats that topic, then adds another; the second topic fences the first,
        // since one peer's subscriptions arrive in order.
        try second.subscribe("batch:feed-7")
        try second.subscribe("invalidated:")
        var seen: [[UInt8]] = []
        while seen.last != [1] + bytes("invalidated:"), let frame = try publisher.receiveBytes() {
            seen.append(frame)
        }
        let expected = verbose
            ? [[1] + bytes("batch:feed-7"), [1] + bytes("invalidated:")]
            : [[1] + bytes("invalidated:")]
        #expect(seen == expected)

        // Events are two frames, topic then body, and reach every matching subscriber.
        try publisher.send(multipart: [bytes("batch:feed-7"), bytes("{}")])
        #expect(try first.receiveMultipart() == [bytes("batch:feed-7"), bytes("{}")])
        #expect(try second.receiveMultipart() == [bytes("batch:feed-7"), bytes("{}")])
    }

    @Test func xpubSeesAnUnsubscribe() throws {
        let context = try Context()
        let publisher = try makeSocket(.xpub, in: context)
        let subscriber = try makeSocket(.sub, in: context)
        try link(publisher, subscriber, over: .inproc)
        try subscriber.subscribe("topic")
        #expect(try publisher.receiveBytes() == [1] + bytes("topic"))
        try subscriber.unsubscribe("topic")
        #expect(try publisher.receiveBytes() == [0] + bytes("topic"))
    }
}
