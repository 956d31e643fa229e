@testable import LayoutEngine

/// Inputs with large sections and batches whose item updates cluster in a window of a section: the
/// changes resuming a section is for. Values are deliberately not multiples of ½ (sevenths, tenths,
/// thirds), so sums round and a resumed pass that added in another order would show.
enum LocalEdits {
    /// A random valid input of `kind`: several sections, one or two of them large (past every
    /// checkpoint interval), headers, footers, overrides and backgrounds as `RandomInputs` makes them.
    static func input(_ kind: LayoutKind, using random: inout SeededRandom) -> LayoutInput {
        var input = RandomInputs.input(kind, maxItemsPerSection: 40, using: &random)
        input.parameters = awkward(input.parameters, using: &random)
        for s in input.sections.indices where random.chance(0.4) {
            input.sections[s].items = items(count: random.int(in: 1100...2600), kind: kind, using: &random)
        }
        if !input.sections.contains(where: { $0.items.count >= 1100 }) {
            let s = random.int(in: 0...(input.sections.count - 1))
            input.sections[s].items = items(count: random.int(in: 1100...2600), kind: kind, using: &random)
        }
        return input
    }

    static func items(count: Int, kind: LayoutKind, using random: inout SeededRandom) -> ItemSizes {
        let sized = random.chance(0.8)
        return UpdateModel.itemSizes((0..<count).map { _ in sized ? sizing(kind, using: &random) : .unspecified })
    }

    /// `RandomInputs.sizing`, with heights that are not multiples of ½ half of the time.
    static func sizing(_ kind: LayoutKind, using random: inout SeededRandom) -> ItemSizing {
        var sizing = RandomInputs.sizing(kind, using: &random)
        if let h = sizing.height, random.chance(0.5) { sizing.height = h + Double(random.int(in: 1...6)) / 7 }
        return sizing
    }

    /// Spacings and paddings that round when summed; waterfalls sometimes with many columns (a heap past
    /// 16, no checkpoints past 64).
    static func awkward(_ parameters: LayoutParameters, using random: inout SeededRandom) -> LayoutParameters {
        let tenth = Double(random.int(in: 1...9)) / 10
        switch parameters {
        case .list(var p):
            p.spacing += tenth
            p.itemHeight += 1.0 / 3
            return .list(p)
        case .columns(var p):
            p.interitemSpacing += tenth
            return .columns(p)
        case .flow(var p):
            p.interitemSpacing += tenth
            return .flow(p)
        case .waterfall(var p):
            p.cellPadding += tenth
            if p.interitemSpacing > 0 { p.interitemSpacing += 1.0 / 7 }
            if random.chance(0.3) {
                // Narrow columns: a padding that still fits (geometry validation).
                p.columns = random.element(of: [17, 24, 70])
                p.cellPadding = tenth
            }
            return .waterfall(p)
        case .mosaic(var p):
            p.spacing += tenth
            return .mosaic(p)
        case .columnFlow(var p):
            p.lineSpacing += tenth
            return .columnFlow(p)
        case .justified(var p):
            p.boxSpacing.vertical += tenth
            p.targetRowHeight += 1.0 / 3
            return .justified(p)
        }
    }

    /// A batch of a few deletes, reloads, inserts and one move inside `[window, end)` of one section
    /// (biased to large sections and late windows), sometimes a reload of the last item of another;
    /// with, per touched section (by index, no section moves), the first item it touches on either side.
    /// Inserted items get ids (above any `withIds` gives) when their section has ids.
    static func batch(
        for sections: [Section], kind: LayoutKind, using random: inout SeededRandom
    ) -> (batch: BatchUpdate, firstTouched: [Int: Int]) {
        var operations: [BatchUpdate.Operation] = []
        var firstTouched: [Int: Int] = [:]
        let candidates = sections.indices.filter { sections[$0].items.count >= 1100 }
        let s = candidates.isEmpty ? random.int(in: 0...(sections.count - 1)) : random.element(of: candidates)
        let count = sections[s].items.count
        let window = random.chance(0.8) ? random.int(in: (count / 2)...count) : random.int(in: 0...count)

        var before = Array(window..<count)
        shuffle(&before, using: &random)
        let deletes = Array(before.prefix(random.int(in: 0...2)))
        before.removeFirst(deletes.count)
        let reloads = Array(before.prefix(random.int(in: 0...2)))
        before.removeFirst(reloads.count)
        let moveSources = Array(before.prefix(random.int(in: 0...1)))
        let newCount = count - deletes.count
            + random.int(in: (deletes.isEmpty && reloads.isEmpty && moveSources.isEmpty ? 1 : 0)...3)
        var after = Array(Swift.min(window, newCount)..<newCount)
        shuffle(&after, using: &random)
        // Every move needs a destination; inserts fill the count up.
        let insertCount = newCount - (count - deletes.count)
        guard after.count >= insertCount + moveSources.count else {
            return batch(for: sections, kind: kind, using: &random)
        }
        let moveDestinations = Array(after.prefix(moveSources.count))
        let inserts = Array(after.dropFirst(moveSources.count).prefix(insertCount))

        for item in deletes { operations.append(.delete(ItemPath(section: s, item: item))) }
        for item in reloads { operations.append(.reload(ItemPath(section: s, item: item), sizing(kind, using: &random), id: nil)) }
        for (from, to) in zip(moveSources, moveDestinations) {
            operations.append(.move(from: ItemPath(section: s, item: from), to: ItemPath(section: s, item: to)))
        }
        for item in inserts {
            let id: ItemID? = sections[s].ids == nil ? nil : .integer(Int64(random.int(in: 1_000_000_000...2_000_000_000)))
            operations.append(.insert(ItemPath(section: s, item: item), sizing(kind, using: &random), id: id))
        }
        let touched = deletes + reloads + moveSources + moveDestinations + inserts
        firstTouched[s] = touched.min() ?? count

        if random.chance(0.4), let other = sections.indices.filter({ $0 != s && !sections[$0].items.isEmpty }).first {
            let last = sections[other].items.count - 1
            operations.append(.reload(ItemPath(section: other, item: last), sizing(kind, using: &random), id: nil))
            firstTouched[other] = last
        }
        shuffle(&operations, using: &random)
        return (BatchUpdate(operations), firstTouched)
    }

    /// `sections` with an id on every item, distinct across the layout (and below the inserted ones).
    static func withIds(_ sections: [Section]) -> [Section] {
        sections.enumerated().map { s, section in
            var section = section
            section.ids = (0..<section.items.count).map { .integer(Int64(s * 10_000_000 + $0)) }
            return section
        }
    }

    static func shuffle<T>(_ values: inout [T], using random: inout SeededRandom) {
        guard values.count > 1 else { return }
        for i in stride(from: values.count - 1, to: 0, by: -1) {
            values.swapAt(i, random.int(in: 0...i))
        }
    }
}
