/// A batch of updates as the client sent it: an ordered list of operations (LAYOUTS.md, Batch updates).
///
/// Index semantics are UIKit's: `delete`, `reload` and a move's source name positions before the batch;
/// `insert` and a move's destination name positions after it; section operations likewise. The order of
/// the operations does not change the result; it only decides which of two conflicting operations is
/// reported (the later one).
///
/// The result is the one of this order (UIKit's, with moves as delete + insert):
/// 1. reloads replace items' sizing and whole sections in place (before-indices);
/// 2. item deletes and move sources, descending, in the sections as they were before the batch;
/// 3. section deletes and moved sections' sources, descending;
/// 4. section inserts and moved sections' destinations, ascending;
/// 5. item inserts and move destinations, ascending, in the sections as they are after the batch.
/// So an item update inside a moved section uses the section's old index on its before side and its
/// new index on its after side. Item updates inside a deleted, inserted or reloaded section are rejected.
///
/// Item ids: a section's items either all have ids or none has. A section keeps its choice while any of
/// its items survives the batch; a section that loses every item takes the choice of the first item that
/// arrives in it. An item that breaks its section's choice is rejected.
public struct BatchUpdate: Hashable, Sendable {
    /// One operation of a batch.
    ///
    /// The section payloads are `indirect`: inline, a `Section` would make every operation over 200 bytes,
    /// and a diff of 10^6 items holds hundreds of thousands of item operations.
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
        indirect case insertSection(Int, Section)
        /// Moves a section (and its items) from a before-index to an after-index.
        case moveSection(from: Int, to: Int)
        /// Replaces the section at a before-index with a whole new one.
        indirect case reloadSection(Int, Section)
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
