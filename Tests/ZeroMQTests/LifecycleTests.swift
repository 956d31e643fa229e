import Dispatch
import Synchronization
import Testing
import ZeroMQ

@Suite struct LifecycleTests {
    @Test func closingTwiceIsHarmless() throws {
        let context = try Context()
        let socket = try Socket(.dealer, in: context)
        #expect(!socket.isClosed)
        socket.close()
        socket.close()
        #expect(socket.isClosed)
    }

    @Test func aClosedSocketRefusesWork() throws {
        let context = try Context()
        let socket = try Socket(.push, in: context)
        socket.close()
        let sendError = #expect(throws: ZeroMQError.self) { try socket.send("x") }
        #expect(sendError?.code == .notSocket)
        let bindError = #expect(throws: ZeroMQError.self) { try socket.bind("inproc://closed") }
        #expect(bindError?.code == .notSocket)
        let optionError = #expect(throws: ZeroMQError.self) { try socket.get(.linger) }
        #expect(optionError?.code == .notSocket)
    }

    @Test func nonBlockingReceiveWithNothingWaitingIsNil() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        try pull.bind(Transport.inproc.bindableEndpoint())
        #expect(try pull.receive(flags: .dontWait) == nil)
        #expect(try pull.receiveMultipart(flags: .dontWait) == nil)
    }

    @Test func receiveTimeoutIsNilNotAnError() throws {
        let context = try Context()
        let pull = try Socket(.pull, in: context)
        try pull.set(.receiveTimeout, 10)
        try pull.bind(Transport.inproc.bindableEndpoint())
        #expect(try pull.receiveBytes() == nil)
    }

    @Test func sendThatWouldBlockReturnsFalse() throws {
        let context = try Context()
        // PUSH with no peer has nowhere to queue, so it would block.
        let push = try Socket(.push, in: context)
        try push.bind(Transport.inproc.bindableEndpoint())
        #expect(try push.send("x", flags: .dontWait) == false)
        #expect(try push.send(multipart: [bytes("a"), bytes("b")], flags: .dontWait) == false)
    }

    @Test(arguments: [
        ("tcp://127.0.0.1", ZeroMQError.Code.invalidArgument),
        ("tcp://127.0.0.1:port", .invalidArgument),
        ("nonsense", .invalidArgument),
        ("bogus://somewhere", .protocolNotSupported),
    ])
    func bindingABadEndpointThrowsItsErrno(endpoint: String, code: ZeroMQError.Code) throws {
        let context = try Context()
        let socket = try Socket(.rep, in: context)
        let error = #expect(throws: ZeroMQError.self) { try socket.bind(endpoint) }
        #expect(error?.code == code)
        #expect(error?.operation == "zmq_bind(\(endpoint))")
        #expect(error?.message.isEmpty == false)
    }

    @Test func bindingATakenPortThrowsAddressInUse() throws {
        let context = try Context()
        let first = try Socket(.rep, in: context)
        try first.bind("tcp://127.0.0.1:*")
        let second = try Socket(.rep, in: context)
        let error = #expect(throws: ZeroMQError.self) { try second.bind(first.lastEndpoint) }
        #expect(error?.code == .addressInUse)
    }

    @Test func receivingOnAPublisherIsNotSupported() throws {
        let context = try Context()
        let publisher = try Socket(.pub, in: context)
        let error = #expect(throws: ZeroMQError.self) { _ = try publisher.receive(flags: .dontWait) }
        #expect(error?.code == .notSupported)
    }

    @Test func errorsNameTheirErrnoAndCall() {
        let error = ZeroMQError(code: .terminated, operation: "zmq_msg_recv")
        #expect(error.code.rawValue == ZeroMQError.Code.terminated.rawValue)
        #expect(error.description.contains("zmq_msg_recv"))
        #expect(error.message == "Context was terminated")
    }

    /// Closed sockets with undelivered messages must not hold up termination. Terminate runs on another
    /// thread so that a regression fails the test instead of hanging it.
    @Test func terminatingAfterClosingSocketsWithQueuedMessagesReturns() throws {
        let context = try Context()
        let port = try Self.unusedTCPEndpoint(context)
        let push = try Socket(.push, in: context)
        try push.connect(port)
        // Connect-side PUSH queues for the peer it is still trying to reach.
        #expect(try push.send("never delivered", flags: .dontWait))
        push.close()
        let idle = try Socket(.pull, in: context)
        idle.close()

        #expect(Self.finishes { context.terminate() })
        #expect(context.isTerminated)
        context.terminate()
    }

    @Test func shutdownWakesABlockedReceiveWithTerminated() throws {
        let context = try Context()
        let endpoint = Transport.inproc.bindableEndpoint()
        let outcome = Mutex<ZeroMQError.Code?>(nil)
        let bound = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { finished.signal() }
            do {
                // The socket is made, used and closed on this thread: it belongs to it.
                let pull = try makeSocket(.pull, in: context)
                try pull.set(.receiveTimeout, 30_000)
                try pull.bind(endpoint)
                bound.signal()
                _ = try pull.receive()
                pull.close()
            } catch {
                bound.signal()
                outcome.withLock { $0 = error.zeroMQCode }
            }
        }
        #expect(bound.wait(timeout: .now() + 10) == .success)
        context.shutdown()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(outcome.withLock { $0 } == .terminated)
        #expect(Self.finishes { context.terminate() })
    }

    @Test func aTerminatedContextMakesNoSockets() throws {
        let context = try Context()
        context.terminate()
        let error = #expect(throws: ZeroMQError.self) { try Socket(.req, in: context) }
        #expect(error?.code == .terminated)
    }

    @Test func linkedLibraryIsTheStable43Series() {
        let version = zeroMQVersion
        #expect(version.major == 4 && version.minor >= 3)
    }

    /// Whether `work` returns within ten seconds (it keeps running in the background if not).
    static func finishes(_ work: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            work()
            done.signal()
        }
        return done.wait(timeout: .now() + 10) == .success
    }

    /// A loopback endpoint nothing listens on: bound once for a free port, then released.
    static func unusedTCPEndpoint(_ context: Context) throws -> String {
        let probe = try Socket(.pull, in: context)
        defer { probe.close() }
        try probe.bind("tcp://127.0.0.1:*")
        let endpoint = try probe.lastEndpoint
        try probe.unbind(endpoint)
        return endpoint
    }
}

extension Error {
    fileprivate var zeroMQCode: ZeroMQError.Code? { (self as? ZeroMQError)?.code }
}
