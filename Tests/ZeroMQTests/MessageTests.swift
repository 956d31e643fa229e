#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import ZeroMQ

@Suite struct MessageTests {
    @Test func messagesCopyTheirSource() throws {
        #expect(try Message("héllo").bytes == Array("héllo".utf8))
        #expect(try Message("héllo").string == "héllo")
        #expect(try Message([1, 2, 3]).count == 3)
        let source: [UInt8] = [9, 8, 7]
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: source.count, alignment: 1)
        defer { copy.deallocate() }
        copy.copyBytes(from: source)
        let fromBuffer = try Message(UnsafeRawBufferPointer(copy))
        copy.copyBytes(from: [0, 0, 0])
        #expect(fromBuffer.bytes == source)
        #expect(Message().count == 0)
        #expect(Message().bytes.isEmpty)
    }

    @Test func messageFilledInPlace() throws {
        let message = try Message(count: 5) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(index * 10) }
        }
        #expect(message.bytes == [0, 10, 20, 30, 40])
    }

    @Test func aThrowingFillerPropagatesItsError() {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try Message(count: 1_000) { _ in throw Refused() }
        }
    }

    @Test func adoptedEmptyBufferIsAnEmptyMessage() throws {
        let buffer = UnsafeMutableRawBufferPointer(start: malloc(1), count: 0)
        #expect(try Message(adoptingMallocBuffer: buffer).count == 0)
    }

    @Test func receivedFramesKnowWhetherMoreFollow() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .inproc)
        try push.send(multipart: [bytes("head"), bytes("body")])
        let head = try required(pull.receive())
        let headHasMore = head.more
        #expect(headHasMore)
        let body = try required(pull.receive())
        let bodyHasMore = body.more
        #expect(!bodyHasMore)
        #expect(body.string == "body")
    }

    /// 50 MB adopted from malloc, sent and received over inproc: the bytes arrive intact, and at the
    /// very address that was handed over, so nothing copied them on the way.
    @Test func largeAdoptedBufferTravelsWithoutCopying() throws {
        let count = 50 * 1_024 * 1_024
        let buffer = try #require(Self.patterned(count: count))
        let context = try Context()
        let pair = try makeSocket(.pair, in: context)
        let peer = try makeSocket(.pair, in: context)
        try link(pair, peer, over: .inproc)

        try pair.send(Message(adoptingMallocBuffer: buffer))
        let received = try required(peer.receive())
        #expect(received.count == count)
        #expect(received.withUnsafeBytes { $0.baseAddress } == UnsafeRawPointer(buffer.baseAddress))
        #expect(received.withUnsafeBytes { Self.followsPattern($0) })
    }

    /// The same 50 MB over tcp, where it must be copied through the kernel: still intact.
    @Test func largeMessageCrossesTCPIntact() throws {
        let count = 50 * 1_024 * 1_024
        let buffer = try #require(Self.patterned(count: count))
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .tcp)

        try push.send(Message(adoptingMallocBuffer: buffer))
        let received = try required(pull.receive())
        #expect(received.count == count)
        #expect(received.withUnsafeBytes { Self.followsPattern($0) })
    }

    /// 251 (a prime) distinct-ish bytes, repeated; a shifted or truncated copy breaks the period.
    static let pattern: [UInt8] = (0..<251).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    /// A malloc'ed buffer of `count` bytes holding `pattern` over and over.
    static func patterned(count: Int) -> UnsafeMutableRawBufferPointer? {
        guard let start = malloc(count) else { return nil }
        let buffer = UnsafeMutableRawBufferPointer(start: start, count: count)
        pattern.withUnsafeBytes { block in
            if let source = block.baseAddress { start.copyMemory(from: source, byteCount: min(block.count, count)) }
        }
        // Doubling copies of whole periods keep the pattern.
        var filled = min(pattern.count, count)
        while filled < count {
            let chunk = min(filled, count - filled)
            (start + filled).copyMemory(from: start, byteCount: chunk)
            filled += chunk
        }
        return buffer
    }

    static func followsPattern(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return bytes.isEmpty }
        return pattern.withUnsafeBytes { block in
            var offset = 0
            while offset < bytes.count {
                let length = min(block.count, bytes.count - offset)
                if let pattern = block.baseAddress, memcmp(base + offset, pattern, length) != 0 { return false }
                offset += length
            }
            return true
        }
    }
}
