@testable import LayoutEngine

extension UpdateModel {
    /// Random inputs and random valid batches, each batch together with the sections it must produce.
    ///
    /// The expectation is built forwards (decide every fate, then place the arrivals at random after-
    /// positions and read their indices off the final arrays), which is a different route from
    /// `UpdateModel.apply`'s literal delete-then-insert replay, so each checks the other.
    struct Generator {
        var random: RandomNumbers
        var kind: LayoutKind
        var allowsSectionUpdates = true
        private var nextId: Int64 = 0

        init(seed: UInt64, kind: LayoutKind = .list) {
            random = RandomNumbers(seed: seed)
            self.kind = kind
        }

        mutating func id() -> ItemID {
            nextId += 1
            return random.chance(0.5) ? .integer(nextId) : .string("id\(nextId)")
        }

        mutating func sizing() -> ItemSizing {
            var sizing = ItemSizing()
            if random.chance(0.6) { sizing.height = random.pick([0, 10, 36.5, 80, 120.25]) }
            if random.chance(0.3) { sizing.aspectRatio = random.pick([0.5, 1, 4.0 / 3.0, 1.5, 2]) }
            if random.chance(0.3) { sizing.width = random.pick([20, 60, 90, 150, 400]) }
            if random.chance(0.1) { sizing.isSpan = true }
            return sizing
        }

        mutating func item(withId: Bool) -> Item {
            Item(sizing: sizing(), id: withId ? id() : nil)
        }

        mutating func section(maxItems: Int = 12) -> SectionModel {
            let hasIds = random.chance(0.8)
            var parameters: LayoutParameters?
            if random.chance(0.2) { parameters = .defaults(for: kind) }
            return SectionModel(
                items: (0..<Int.random(in: 0...maxItems, using: &random)).map { _ in item(withId: hasIds) },
                hasIds: hasIds,
                headerHeight: random.chance(0.3) ? random.pick([0, 24, 40.5]) : nil,
                footerHeight: random.chance(0.3) ? random.pick([0, 12]) : nil,
                parameters: parameters
            )
        }

        mutating func sections(maxSections: Int = 5) -> [SectionModel] {
            (0..<Int.random(in: 0...maxSections, using: &random)).map { _ in section() }
        }

        mutating func input(_ sections: [SectionModel]) -> LayoutInput {
            LayoutInput(
                bounds: Size(width: random.pick([320, 375, 1024.5]), height: 800),
                parameters: .defaults(for: kind),
                contentInsets: random.chance(0.3) ? Insets(top: 3, left: 10, bottom: 4, right: 6) : .zero,
                sectionBackgrounds: random.chance(0.3),
                sections: sections.map(\.section)
            )
        }

        private enum SectionFate { case keep, delete, move, reload }
        private enum ItemFate { case keep, delete, moveAway, reload }

        /// One entry of a section after the batch.
        private enum Placed {
            case old(Int)
            case new(SectionModel)
        }

        /// One entry of an item list after the batch.
        private enum Arrival {
            case stays(Item)
            case new(Item)
            case moved(from: ItemPath, Item)
        }

        /// A valid batch for `old`, in shuffled order, and the sections it must produce.
        mutating func batch(for old: [SectionModel]) -> (batch: BatchUpdate, expected: [SectionModel]) {
            var operations: [BatchUpdate.Operation] = []

            // Sections: fates, then arrivals at random after-positions.
            let fates: [SectionFate] = old.map { _ in
                guard allowsSectionUpdates else { return .keep }
                let roll = Double.random(in: 0..<1, using: &random)
                return roll < 0.6 ? .keep : roll < 0.72 ? .delete : roll < 0.86 ? .move : .reload
            }
            var placed: [Placed] = old.indices.filter { fates[$0] == .keep || fates[$0] == .reload }.map { .old($0) }
            var arriving: [Placed] = old.indices.filter { fates[$0] == .move }.map { .old($0) }
            if allowsSectionUpdates {
                for _ in 0..<Int.random(in: 0...2, using: &random) { arriving.append(.new(section())) }
            }
            arriving.shuffle(using: &random)
            for entry in arriving {
                placed.insert(entry, at: Int.random(in: 0...placed.count, using: &random))
            }
            for (t, entry) in placed.enumerated() {
                switch entry {
                case .old(let s):
                    if fates[s] == .move { operations.append(.moveSection(from: s, to: t)) }
                case .new(let section):
                    operations.append(.insertSection(t, section.section))
                }
            }
            var reloaded: [Int: SectionModel] = [:]
            for (s, fate) in fates.enumerated() {
                switch fate {
                case .delete: operations.append(.deleteSection(s))
                case .reload:
                    let section = self.section()
                    reloaded[s] = section
                    operations.append(.reloadSection(s, section.section))
                case .keep, .move: break
                }
            }

            // Items: only in sections that are kept or moved (not deleted, inserted or reloaded).
            let editable = old.indices.filter { fates[$0] == .keep || fates[$0] == .move }
            var lists: [Int: [Arrival]] = [:]
            var movedAway: [(from: ItemPath, item: Item, hasIds: Bool)] = []
            for s in editable {
                var list: [Arrival] = []
                for (i, item) in old[s].items.enumerated() {
                    let path = ItemPath(section: s, item: i)
                    let roll = Double.random(in: 0..<1, using: &random)
                    let fate: ItemFate = roll < 0.6 ? .keep : roll < 0.75 ? .delete : roll < 0.9 ? .moveAway : .reload
                    switch fate {
                    case .keep:
                        list.append(.stays(item))
                    case .delete:
                        operations.append(.delete(path))
                    case .moveAway:
                        movedAway.append((path, item, old[s].hasIds))
                    case .reload:
                        var changed = item
                        changed.sizing = sizing()
                        let newId: ItemID? = old[s].hasIds && random.chance(0.5) ? id() : nil
                        if let newId { changed.id = newId }
                        operations.append(.reload(path, changed.sizing, id: newId))
                        list.append(.stays(changed))
                    }
                }
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    list.append(.new(item(withId: old[s].hasIds)))
                }
                lists[s] = list
            }
            var arrivals: [Int: [Arrival]] = [:]
            for s in editable {
                arrivals[s] = lists[s]?.filter { if case .stays = $0 { false } else { true } } ?? []
                lists[s] = lists[s]?.filter { if case .stays = $0 { true } else { false } } ?? []
            }
            for moved in movedAway {
                // Only between sections that agree on ids, so the result stays consistent.
                let destination = random.pick(editable.filter { old[$0].hasIds == moved.hasIds })
                arrivals[destination, default: []].append(.moved(from: moved.from, moved.item))
            }
            for s in editable {
                var list = lists[s] ?? []
                for arrival in (arrivals[s] ?? []).shuffled(using: &random) {
                    list.insert(arrival, at: Int.random(in: 0...list.count, using: &random))
                }
                lists[s] = list
            }

            var expected: [SectionModel] = []
            for (t, entry) in placed.enumerated() {
                switch entry {
                case .new(let section):
                    expected.append(section)
                case .old(let s):
                    if let section = reloaded[s] {
                        expected.append(section)
                        continue
                    }
                    var section = old[s]
                    section.items = []
                    for (j, arrival) in (lists[s] ?? []).enumerated() {
                        let to = ItemPath(section: t, item: j)
                        switch arrival {
                        case .stays(let item):
                            section.items.append(item)
                        case .new(let item):
                            operations.append(.insert(to, item.sizing, id: item.id))
                            section.items.append(item)
                        case let .moved(from, item):
                            operations.append(.move(from: from, to: to))
                            section.items.append(item)
                        }
                    }
                    expected.append(section)
                }
            }
            operations.shuffle(using: &random)
            return (BatchUpdate(operations), expected)
        }
    }
}
