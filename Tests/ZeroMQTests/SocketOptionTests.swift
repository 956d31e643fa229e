import Testing
import ZeroMQ

@Suite struct SocketOptionTests {
    @Test func newSocketsLingerZeroSoTerminationNeverWaits() throws {
        let context = try Context()
        for type in SocketType.allCases {
            let socket = try Socket(type, in: context)
            #expect(try socket.get(.linger) == 0, "\(type)")
        }
    }

    @Test func int32OptionsRoundTrip() throws {
        let context = try Context()
        let socket = try Socket(.dealer, in: context)
        try socket.set(.linger, 250)
        try socket.set(.sendHighWaterMark, 17)
        try socket.set(.receiveHighWaterMark, 19)
        try socket.set(.receiveTimeout, 1_234)
        try socket.set(.sendTimeout, -1)
        #expect(try socket.get(.linger) == 250)
        #expect(try socket.get(.sendHighWaterMark) == 17)
        #expect(try socket.get(.receiveHighWaterMark) == 19)
        #expect(try socket.get(.receiveTimeout) == 1_234)
        #expect(try socket.get(.sendTimeout) == -1)
    }

    /// `ZMQ_MAXMSGSIZE` is an `int64_t`: libzmq rejects a 4-byte value, and a value past 2^31 only
    /// survives if all 8 bytes travel.
    @Test(arguments: [Int64(5_000_000_000), 1 << 40, -1, 1_000])
    func maxMessageSizeRoundTripsAsInt64(value: Int64) throws {
        let context = try Context()
        let socket = try Socket(.pull, in: context)
        try socket.set(.maxMessageSize, value)
        #expect(try socket.get(.maxMessageSize) == value)
    }

    @Test func booleanAndBinaryOptionsRoundTrip() throws {
        let context = try Context()
        let socket = try Socket(.dealer, in: context)
        #expect(try socket.get(.immediate) == false)
        try socket.set(.immediate, true)
        #expect(try socket.get(.immediate) == true)

        let id: [UInt8] = [7, 0, 255, 1]
        try socket.set(.routingID, id)
        #expect(try socket.get(.routingID) == id)
        let longest = [UInt8](repeating: 9, count: 255)
        try socket.set(.routingID, longest)
        #expect(try socket.get(.routingID) == longest)
    }

    @Test func writeOnlyOptionsAreAccepted() throws {
        let context = try Context()
        let router = try Socket(.router, in: context)
        try router.set(.routerMandatory, true)
        let xpub = try Socket(.xpub, in: context)
        try xpub.set(.xpubVerbose, true)
        let sub = try Socket(.sub, in: context)
        try sub.subscribe()
        try sub.subscribe([0, 1])
        try sub.unsubscribe([0, 1])
    }

    @Test func invalidOptionValuesThrowInvalidArgument() throws {
        let context = try Context()
        let socket = try Socket(.dealer, in: context)
        // libzmq limits routing ids to 255 bytes.
        let error = #expect(throws: ZeroMQError.self) {
            try socket.set(.routingID, [UInt8](repeating: 1, count: 256))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.operation.hasPrefix("zmq_setsockopt") == true)
    }

    @Test func readOnlyOptionsDescribeTheSocket() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .inproc)
        #expect(try pull.fileDescriptor >= 0)
        #expect(try pull.receiveMore == false)
        #expect(try push.events.contains(.writable))

        try push.send(multipart: [bytes("a"), bytes("b")])
        #expect(try pull.receiveString() == "a")
        #expect(try pull.receiveMore == true)
        #expect(try pull.receiveString() == "b")
        #expect(try pull.receiveMore == false)
    }

    /// A peer that sends more than `maxMessageSize` over tcp is disconnected and its message dropped.
    /// The pusher keeps queueing small markers: after it reconnects they flow again, and the first
    /// frame to arrive after the first marker must be a marker, never the oversized message.
    @Test func oversizedMessagesAreDroppedByTheReceiver() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        try pull.set(.maxMessageSize, 1_000)
        try pull.set(.receiveTimeout, 200)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .tcp)

        try push.send("before")
        try pull.set(.receiveTimeout, testTimeoutMilliseconds)
        #expect(try pull.receiveString() == "before")
        try pull.set(.receiveTimeout, 200)

        try push.send([UInt8](repeating: 0xAB, count: 2_000))
        var next: [UInt8]?
        for _ in 0..<50 where next == nil {
            try push.send("after", flags: .dontWait)
            next = try pull.receiveBytes()
        }
        #expect(next == bytes("after"))
    }
}
