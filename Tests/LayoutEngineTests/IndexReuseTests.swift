import Testing
@testable import LayoutEngine

/// The rect index of a layout that shares its first elements with another one, built by keeping the
/// other index's boxes over those elements: the same boxes as an index built whole.
@Suite struct IndexReuseTests {
    /// Elements in layout order with their frames, as the index sees them.
    static func frames(of layout: PreparedLayout) -> [Rect] {
        var frames: [Rect] = []
        layout.forEachElement { frames.append($0.frame) }
        return frames
    }

    @Test func keepingAnyPrefixOfTheSharedElementsGivesTheIndexBuiltWhole() throws {
        var random = SeededRandom(seed: 5)
        for _ in 0..<12 {
            var input = RandomInputs.input(.list, maxItemsPerSection: 900, using: &random)
            input.sections.append(Section(count: random.int(in: 1...400)))
            let before = try PreparedLayout.prepare(input)
            // A taller last item in the last section: everything before it stays put.
            var changed = input
            let last = changed.sections.count - 1
            changed.sections[last].items[changed.sections[last].items.count - 1] = ItemSizing(height: 777)
            let after = try PreparedLayout.prepare(changed)
            let old = Self.frames(of: before)
            let new = Self.frames(of: after)
            let shared = zip(old, new).prefix { $0 == $1 }.count
            #expect(shared < new.count)
            for unchanged in Set([0, 1, 15, 16, 17, 127, 128, 129, shared / 2, shared - 1, shared]) where unchanged <= shared {
                let rebuilt = PreparedLayout(
                    input: changed, sectionFrames: after.sectionFrames, backgroundWidth: PreparedLayout.backgroundWidth(of: changed),
                    reusingIndexOf: before.index, unchangedElements: unchanged
                )
                let same = rebuilt.index == after.index
                #expect(same, "keeping \(unchanged) of \(shared) shared elements")
            }
        }
    }

    @Test func checkpointsAreFoundByTheItemTheyComeBefore() {
        var checkpoints = SectionCheckpoints(width: 2)
        for item in [256, 512, 770] { checkpoints.append(item: item, state: [Double(item), -Double(item)]) }
        #expect(checkpoints.last(below: 256) == nil)
        #expect(checkpoints.last(below: 257) == 0)
        #expect(checkpoints.last(below: 770) == 1)
        #expect(checkpoints.last(below: 10_000) == 2)
        #expect(Array(checkpoints.state(at: 1)) == [512, -512])
        let kept = checkpoints.prefix(below: 600)
        #expect(kept.items == [256, 512] && kept.values == [256, -256, 512, -512])
        #expect(checkpoints.prefix(below: 0).isEmpty)
    }
}
