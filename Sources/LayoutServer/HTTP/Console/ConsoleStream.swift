import NIOCore
import NIOHTTP1
import Synchronization

/// One open `/api/events` response: Server-Sent Events written to its channel, each event a line
/// `data: {"topic":…,"event":…}`. The gateway thread calls `deliver`; the writes happen on the
/// channel's event loop. A client that does not read loses events (the page sees the version gap, as a
/// ZeroMQ subscriber would) rather than growing the daemon's memory.
final class ConsoleStream: Sendable {
    private let channel: any Channel
    /// Only topics starting with this are sent (`?topic=`).
    let topicFilter: String
    /// Bytes written and not yet flushed out, beyond which events are dropped.
    private let unsent = Atomic<Int>(0)
    static let maxUnsentBytes = 1 << 20

    init(channel: any Channel, topicFilter: String) {
        self.channel = channel
        self.topicFilter = topicFilter
    }

    func deliver(topic: String, body: [UInt8]) {
        guard topic.hasPrefix(topicFilter) else { return }
        var line = Array(#"data: {"topic":"#.utf8)
        line += ConsoleJSON.quoted(topic)
        line += Array(#","event":"#.utf8)
        line += body.filter { $0 != 10 && $0 != 13 }
        line += Array("}\n\n".utf8)
        write(line)
    }

    /// An SSE comment: keeps proxies from closing an idle stream and finds a gone client.
    func keepAlive() {
        write(Array(": keep-alive\n\n".utf8))
    }

    /// Ends the response (the console is stopping).
    func finish() {
        let channel = self.channel
        channel.eventLoop.execute {
            channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func write(_ bytes: [UInt8]) {
        let count = bytes.count
        guard unsent.add(count, ordering: .relaxed).newValue <= Self.maxUnsentBytes else {
            unsent.subtract(count, ordering: .relaxed)
            return
        }
        let channel = self.channel
        channel.eventLoop.execute {
            let part = HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: bytes)))
            channel.writeAndFlush(part).whenComplete { _ in self.unsent.subtract(count, ordering: .relaxed) }
        }
    }
}

/// The few JSON pieces the console writes itself.
enum ConsoleJSON {
    /// `text` as a JSON string, quotes included.
    static func quoted(_ text: String) -> [UInt8] {
        var out: [UInt8] = [34]
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += [92, 34]
            case "\\": out += [92, 92]
            case "\n": out += [92, 110]
            case "\r": out += [92, 114]
            case "\t": out += [92, 116]
            case _ where scalar.value < 0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(scalar.value >> 4)], hex[Int(scalar.value & 15)]]
            default:
                out += Array(String(scalar).utf8)
            }
        }
        out.append(34)
        return out
    }
}
