import LayoutEngine
import Testing
@testable import LayoutWire

/// A reply writes a batch's members straight into its buffer, an event from `members(of:)`: the two
/// must give the same bytes, the reply's and the event's members being one contract (PROTOCOL.md).
struct BatchEncodingTests {
    private static let batches: [NormalizedBatch] = [
        NormalizedBatch(),
        NormalizedBatch(inserts: [ItemPath(section: 0, item: 16)]),
        NormalizedBatch(
            deletes: [ItemPath(section: 2, item: 9), ItemPath(section: 0, item: 1)],
            inserts: [ItemPath(section: 0, item: 0), ItemPath(section: 1, item: 12)],
            moves: [.init(from: ItemPath(section: 0, item: 4), to: ItemPath(section: 1, item: 1))],
            reloads: [ItemPath(section: 3, item: 7)],
            sections: .init(deletes: [5, 2], inserts: [1], moves: [.init(from: 0, to: 3)], reloads: [4, 6])
        ),
    ]

    @Test(arguments: batches) func writingTheMembersGivesTheBytesOfTheEncodedMembers(_ batch: NormalizedBatch) {
        var direct = JSONWriter(capacity: 16)
        BatchEncoding.write(batch, into: &direct)
        var listed = JSONWriter(capacity: 16)
        listed.write(members: BatchEncoding.members(of: batch))
        let (directText, listedText) = (String(decoding: direct.finish(), as: UTF8.self), String(decoding: listed.finish(), as: UTF8.self))
        #expect(directText == listedText)
    }

    @Test func anAppendIsWrittenAsDocumented() {
        var writer = JSONWriter(capacity: 16)
        BatchEncoding.write(NormalizedBatch(inserts: [ItemPath(section: 0, item: 16)]), into: &writer)
        let text = String(decoding: writer.finish(), as: UTF8.self)
        #expect(text == #","deletes":[],"inserts":[[0,16]],"moves":[],"reloads":[],"sections":{"deletes":[],"inserts":[],"moves":[],"reloads":[]}"#)
    }
}
