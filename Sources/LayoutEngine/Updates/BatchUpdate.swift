/// A batch of updates as the client sent it: an ordered list of operations (LAYOUTS.md, Batch updates).
///
/// Index semantics are UIKit's: `delete`, `reload` and a move's source name positions before the batch;
/// `insert` and a move's destination name positions after it. The order of the operations does not
/// change the result; it only decides which of two conflicting operations is reported (the later one).
public struct BatchUpdate: Hashable, Sendable {
    /// One operation of a batch.
    public enum Operation: Hashable, Sendable {
        /// Removes the item at a before-index.
        case delete(ItemPath)
        /// Adds an item at an after-index; `id` is required exactly when the section keeps ids.
        case insert(ItemPath, ItemSizing, id: ItemID?)
        /// Moves an item from a before-index to an after-index, keeping its sizing and id.
        case move(from: ItemPath, to: ItemPath)
        /// Replaces the sizing of the item at a before-index; a nil `id` keeps the item's id.
        case reload(ItemPath, ItemSizing, id: ItemID?)
        /// Removes the section at a before-index with its items.
        case deleteSection(Int)
        /// Adds a whole section at an after-index.
        case insertSection(Int, Section)
        /// Moves a section (and its items) from a before-index to an after-index.
        case moveSection(from: Int, to: Int)
        /// Replaces the section at a before-index with a whole new one.
        case reloadSection(Int, Section)
    }

    /// The operations in request order.
    public var operations: [Operation]

    public init(_ operations: [Operation] = []) {
        self.operations = operations
    }

    public var isEmpty: Bool { operations.isEmpty }
}

extension BatchUpdate: ExpressibleByArrayLiteral {
    public init(arrayLiteral operations: Operation...) {
        self.init(operations)
    }
}
