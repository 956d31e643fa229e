import Foundation
import Testing
import ZeroMQ
import LayoutClient
@testable import LayoutServer

/// A subscriber learns its subscriptions are in effect from the `subscribed:<token>` event
/// (PROTOCOL.md §7), on a single daemon and through a broker alike, and then misses no event.
@Suite(.serialized) struct SubscriptionConfirmationTests {
    @Test(arguments: Topology.all) func anEventAfterTheConfirmationIsNeverMissed(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        // Repeated: without the confirmation an update made right after subscribing is lost now and then.
        for round in 0..<5 {
            let key = "feed\(round)"
            #expect(try daemon.call(mosaicJob(key: key)).ok)
            let subscriber = try Socket(.sub, in: daemon.context)
            try subscriber.set(.receiveTimeout, 10_000)
            try subscriber.subscribe("invalidated:\(key)")
            let token = "tok\(round)-\(UInt32.random(in: 0 ... .max))"
            try subscriber.subscribe("subscribed:\(token)")
            try subscriber.connect(daemon.running.eventsEndpoint)
            let confirmation = try TestDaemon.nextEvent(subscriber)
            #expect(confirmation.topic == "subscribed:\(token)")
            #expect(confirmation.body["event"] as? String == "subscribed")
            #expect(confirmation.body["token"] as? String == token)
            try subscriber.unsubscribe("subscribed:\(token)")
            #expect(try daemon.call(#"{"v":1,"id":"b","op":"bounds","layout":"\#(key)","bounds":{"width":400,"height":800}}"#).ok)
            let event = try TestDaemon.nextEvent(subscriber)
            #expect(event.topic == "invalidated:\(key)" && event.body["version"] as? Int == 2)
            subscriber.close()
        }
    }

    @Test(arguments: Topology.all) func theSwiftSubscriberWaitsUntilItsSubscriptionsAreInEffect(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        #expect(try daemon.call(mosaicJob(key: "wall")).ok)
        // A subscriber of everything, confirmed: another client's confirmation reaches it as an event
        // it may skip, and the change made right after the confirmation is never missed.
        let subscriber = try EventSubscriber(endpoint: daemon.running.eventsEndpoint, context: daemon.context, prefixes: ["invalidated:wall"])
        #expect(try subscriber.confirmSubscriptions(timeout: .seconds(10)))
        #expect(try daemon.call(#"{"v":1,"id":"b","op":"bounds","layout":"wall","bounds":{"width":400,"height":800}}"#).ok)
        let event = try #require(try subscriber.next(timeout: .seconds(10)))
        #expect(event.topic == "invalidated:wall" && event.version == 2)
    }

    @Test func aTopicThatIsNoTokenIsAnOrdinarySubscription() throws {
        let daemon = try TestDaemon()
        let subscriber = try Socket(.sub, in: daemon.context)
        try subscriber.set(.receiveTimeout, 300)
        // Too short, and a character outside the token's alphabet: nothing is published for them.
        try subscriber.subscribe("subscribed:short")
        try subscriber.subscribe("subscribed:not a token!")
        try subscriber.subscribe("subscribed:confirmed")
        try subscriber.connect(daemon.running.eventsEndpoint)
        let event = try TestDaemon.nextEvent(subscriber)
        #expect(event.topic == "subscribed:confirmed")
        #expect(throws: (any Error).self) { try TestDaemon.nextEvent(subscriber) }
    }
}
