import LayoutTestKit
import ZeroMQ

/// One client DEALER, framing each body as `[empty delimiter, body]` the way REQ (and `LayoutClient`)
/// does; the same code talks to the daemon and to the echo server, so client costs cancel in the ratios.
///
/// Replies are kept as `Message`s: a large reply is checked where libzmq put it, never copied.
final class BenchDealer {
    let socket: Socket

    init(endpoint: String, context: Context, timeout: Duration = .seconds(60)) throws {
        socket = try Socket(.dealer, in: context)
        let milliseconds = Int32(clamping: Int64(timeout.seconds * 1000))
        try socket.set(.receiveTimeout, milliseconds)
        try socket.set(.sendTimeout, milliseconds)
        try socket.connect(endpoint)
    }

    /// Sends `body` after the delimiter, and `attachments` after it (binary frames the body names);
    /// blocks (up to the send timeout) only when the queue is full.
    func send(_ body: [UInt8], attachments: [[UInt8]] = []) throws {
        let delimiter: [UInt8] = []
        guard try socket.send(delimiter, flags: .sendMore), try socket.send(body, flags: attachments.isEmpty ? [] : .sendMore) else {
            throw BenchFailure("send timed out")
        }
        for (index, frame) in attachments.enumerated() {
            guard try socket.send(frame, flags: index == attachments.count - 1 ? [] : .sendMore) else { throw BenchFailure("send timed out") }
        }
    }

    /// Every frame of the next reply after the delimiter (a binary reply has its columns after the
    /// JSON), kept where libzmq put them; waits up to the receive timeout.
    func receiveFrames() throws -> [ReceivedFrame] {
        guard let delimiter = try socket.receive() else { throw BenchFailure("no reply within the receive timeout") }
        guard delimiter.more, delimiter.count == 0 else { throw BenchFailure("reply without the request's envelope") }
        var frames: [ReceivedFrame] = []
        var more = true
        while more {
            let frame = try socket.receiveFollowingFrame()
            more = frame.more
            frames.append(ReceivedFrame(frame))
        }
        return frames
    }

    /// The body of the next reply; waits up to the receive timeout (throws then), or not at all with
    /// `.dontWait` (nil when nothing is waiting).
    func receive(flags: ReceiveFlags = []) throws -> Message? {
        guard let delimiter = try socket.receive(flags: flags) else {
            if flags.contains(.dontWait) { return nil }
            throw BenchFailure("no reply within the receive timeout")
        }
        guard delimiter.more, delimiter.count == 0 else {
            throw BenchFailure("reply without the request's envelope")
        }
        // The rest of a multipart message is already there: libzmq delivers it whole.
        guard let body = try socket.receive(flags: .dontWait), !body.more else {
            throw BenchFailure("reply is not [delimiter, body]")
        }
        return body
    }

    func close() {
        socket.close()
    }
}

/// A received frame, in a class so that frames can be kept in an array (`Message` is not copyable).
final class ReceivedFrame {
    let message: Message

    init(_ message: consuming Message) {
        self.message = message
    }

    var count: Int { message.count }
}

extension Message {
    /// Whether the frame starts like a success reply, `{"v":1,"id":…,"ok":true`: a look at its first
    /// bytes only, cheap enough to run on every small reply.
    var isSuccessReply: Bool {
        withUnsafeBytes { bytes in
            let pattern = Array(#""ok":true"#.utf8)
            let window = bytes.prefix(96)
            guard window.count >= pattern.count else { return false }
            for start in 0...(window.count - pattern.count)
            where window[start] == pattern[0] && window[start..<(start + pattern.count)].elementsEqual(pattern) {
                return true
            }
            return false
        }
    }
}
