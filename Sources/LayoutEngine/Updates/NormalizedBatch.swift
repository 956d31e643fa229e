/// A validated batch in the form every subscriber receives (LAYOUTS.md, Batch updates; the `batch` event).
///
/// Moves appear only as pairs: their halves are not repeated in `deletes` or `inserts`. Applying it the
/// UIKit way (moves as delete + insert, deletes in descending order, then inserts in ascending order,
/// reloads in place) gives the new contents.
public struct NormalizedBatch: Hashable, Sendable {
    /// An item moved from a before-index to an after-index.
    public struct Move: Hashable, Sendable {
        public var from: ItemPath
        public var to: ItemPath

        public init(from: ItemPath, to: ItemPath) {
            self.from = from
            self.to = to
        }
    }

    /// A section moved from a before-index to an after-index.
    public struct SectionMove: Hashable, Sendable {
        public var from: Int
        public var to: Int

        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// The section-level part of a batch (the event's `sections` object).
    public struct SectionChanges: Hashable, Sendable {
        /// Before-indices, descending.
        public var deletes: [Int]
        /// After-indices, ascending.
        public var inserts: [Int]
        /// Ascending by source.
        public var moves: [SectionMove]
        /// Before-indices, ascending.
        public var reloads: [Int]

        public init(deletes: [Int] = [], inserts: [Int] = [], moves: [SectionMove] = [], reloads: [Int] = []) {
            self.deletes = deletes
            self.inserts = inserts
            self.moves = moves
            self.reloads = reloads
        }

        public var isEmpty: Bool { deletes.isEmpty && inserts.isEmpty && moves.isEmpty && reloads.isEmpty }
    }

    /// Before-index paths, descending.
    public var deletes: [ItemPath]
    /// After-index paths, ascending.
    public var inserts: [ItemPath]
    /// Ascending by source.
    public var moves: [Move]
    /// Before-index paths, ascending.
    public var reloads: [ItemPath]
    public var sections: SectionChanges

    public init(deletes: [ItemPath] = [], inserts: [ItemPath] = [], moves: [Move] = [], reloads: [ItemPath] = [], sections: SectionChanges = SectionChanges()) {
        self.deletes = deletes
        self.inserts = inserts
        self.moves = moves
        self.reloads = reloads
        self.sections = sections
    }

    public var isEmpty: Bool { deletes.isEmpty && inserts.isEmpty && moves.isEmpty && reloads.isEmpty && sections.isEmpty }
}
