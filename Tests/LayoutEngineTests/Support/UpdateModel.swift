import LayoutTestKit
@testable import LayoutEngine

/// A naive reference for batch updates and diff: sections as plain Swift arrays of items, and the
/// documented order (LAYOUTS.md, Batch updates) applied literally, one array operation at a time.
///
/// Everything lives in this namespace so that other test files of the target cannot collide with it.
enum UpdateModel {
    struct Item: Hashable {
        var sizing: ItemSizing
        var id: ItemID?
    }

    struct SectionModel: Hashable {
        var items: [Item]
        var hasIds: Bool
        var headerHeight: Double?
        var footerHeight: Double?
        var parameters: LayoutParameters?

        init(items: [Item], hasIds: Bool, headerHeight: Double? = nil, footerHeight: Double? = nil, parameters: LayoutParameters? = nil) {
            self.items = items
            self.hasIds = hasIds
            self.headerHeight = headerHeight
            self.footerHeight = footerHeight
            self.parameters = parameters
        }

        init(_ section: Section) {
            let ids = section.ids
            items = (0..<section.items.count).map { Item(sizing: section.items[$0], id: ids?[$0]) }
            hasIds = ids != nil
            headerHeight = section.headerHeight
            footerHeight = section.footerHeight
            parameters = section.parameters
        }

        var section: Section {
            Section(
                items: UpdateModel.itemSizes(items.map(\.sizing)),
                ids: hasIds ? items.compactMap(\.id) : nil,
                headerHeight: headerHeight,
                footerHeight: footerHeight,
                parameters: parameters
            )
        }

        /// For comparing results where an empty section's `ids` of nil and [] mean the same.
        var ignoringIdsWhenEmpty: SectionModel {
            var copy = self
            if copy.items.isEmpty { copy.hasIds = false }
            return copy
        }
    }

    static func model(_ sections: [Section]) -> [SectionModel] { sections.map(SectionModel.init) }

    /// Columns built by hand: `ItemSizes(_:)` drops the first item's fields (appending to an empty
    /// `ItemSizes` materialises zero-length columns that still read as absent).
    static func itemSizes(_ items: [ItemSizing]) -> ItemSizes {
        func column(_ field: (ItemSizing) -> Double?) -> [Double] {
            items.contains { field($0) != nil } ? items.map { field($0) ?? .nan } : []
        }
        let spans = items.contains(where: \.isSpan) ? items.map(\.isSpan) : []
        return ItemSizes(count: items.count, heights: column(\.height), aspectRatios: column(\.aspectRatio), widths: column(\.width), spans: spans)
            ?? ItemSizes(count: 0)
    }

    // MARK: Applying a batch, literally

    /// 1. reloads in place (before-indices); 2. item deletes and move sources, descending; 3. section
    /// deletes and move sources, descending; 4. section inserts and move destinations, ascending;
    /// 5. item inserts and move destinations, ascending. Assumes a valid batch.
    static func apply(_ batch: BatchUpdate, to old: [SectionModel]) -> [SectionModel] {
        var sections = old
        var itemRemovals: [ItemPath] = []
        var itemInsertions: [(path: ItemPath, item: Item)] = []
        var sectionRemovals: [Int] = []
        var sectionInsertions: [(index: Int, section: SectionModel?, movedFrom: Int?)] = []
        for operation in batch.operations {
            switch operation {
            case .delete(let path):
                itemRemovals.append(path)
            case let .insert(path, sizing, id):
                itemInsertions.append((path, Item(sizing: sizing, id: id)))
            case let .move(from, to):
                itemRemovals.append(from)
                itemInsertions.append((to, old[from.section].items[from.item]))
            case let .reload(path, sizing, id):
                sections[path.section].items[path.item].sizing = sizing
                if let id { sections[path.section].items[path.item].id = id }
            case .deleteSection(let s):
                sectionRemovals.append(s)
            case let .insertSection(s, section):
                sectionInsertions.append((s, SectionModel(section), nil))
            case let .moveSection(from, to):
                sectionRemovals.append(from)
                sectionInsertions.append((to, nil, from))
            case let .reloadSection(s, section):
                sections[s] = SectionModel(section)
            }
        }
        for path in itemRemovals.sorted(by: >) {
            sections[path.section].items.remove(at: path.item)
        }
        let beforeSectionRemovals = sections
        for s in sectionRemovals.sorted(by: >) {
            sections.remove(at: s)
        }
        for insertion in sectionInsertions.sorted(by: { $0.index < $1.index }) {
            let section = insertion.movedFrom.map { beforeSectionRemovals[$0] } ?? insertion.section
            if let section { sections.insert(section, at: insertion.index) }
        }
        for insertion in itemInsertions.sorted(by: { $0.path < $1.path }) {
            sections[insertion.path.section].items.insert(insertion.item, at: insertion.path.item)
        }
        for s in sections.indices where !sections[s].items.isEmpty {
            sections[s].hasIds = sections[s].items.allSatisfy { $0.id != nil }
        }
        return sections
    }

    // MARK: Comparing layouts bit for bit

    struct ElementBits: Hashable {
        var kind: ElementKind
        var section: Int
        var item: Int
        var x: UInt64
        var y: UInt64
        var width: UInt64
        var height: UInt64
    }

    /// Every element in layout order with its frame as bit patterns, then the content size.
    static func bits(of layout: PreparedLayout) -> (elements: [ElementBits], contentSize: [UInt64]) {
        var elements: [ElementBits] = []
        layout.forEachElement { element in
            let f = element.frame
            elements.append(ElementBits(kind: element.kind, section: element.section, item: element.item,
                                        x: f.x.bitPattern, y: f.y.bitPattern, width: f.width.bitPattern, height: f.height.bitPattern))
        }
        return (elements, [layout.contentSize.width.bitPattern, layout.contentSize.height.bitPattern])
    }

    static func isIdentical(_ a: PreparedLayout, _ b: PreparedLayout) -> Bool {
        let (aElements, aSize) = bits(of: a)
        let (bElements, bSize) = bits(of: b)
        return aElements == bElements && aSize == bSize && a.sectionTops.map(\.bitPattern) == b.sectionTops.map(\.bitPattern)
    }
}

extension UpdateModel {
    /// The shared SplitMix64 generator, with the draws the update tests need.
    struct RandomNumbers: RandomNumberGenerator {
        private var generator: SeededGenerator

        init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

        mutating func next() -> UInt64 { generator.next() }

        mutating func chance(_ probability: Double) -> Bool {
            Double.random(in: 0..<1, using: &self) < probability
        }

        mutating func pick<T>(_ values: [T]) -> T {
            values[Int.random(in: 0..<values.count, using: &self)]
        }
    }
}
