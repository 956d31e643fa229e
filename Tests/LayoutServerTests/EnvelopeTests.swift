import Testing
@testable import LayoutServer

@Suite struct EnvelopeTests {
    @Test func keepsEveryFrameInOrderIncludingEmptyAndLongOnes() {
        let frames: [[UInt8]] = [[0, 0x80, 0, 0, 0x29], [], Array(repeating: 7, count: 300), [1]]
        let envelope = Envelope(frames)
        #expect(envelope.count == 4)
        #expect(envelope.frames == frames)
    }

    @Test func anEmptyEnvelopeHasNoFrames() {
        #expect(Envelope().isEmpty)
        #expect(Envelope().frames.isEmpty)
        #expect(!Envelope([[]]).isEmpty)
    }

    @Test func stopsVisitingWhenTheCallerSaysSo() throws {
        let envelope = Envelope([[1], [2], [3]])
        var seen: [[UInt8]] = []
        let finished = try envelope.forEachFrame { frame in
            seen.append(Array(frame))
            return seen.count < 2
        }
        #expect(!finished)
        #expect(seen == [[1], [2]])
    }
}
