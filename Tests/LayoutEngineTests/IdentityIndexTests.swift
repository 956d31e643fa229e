import Testing
@testable import LayoutEngine

/// The id table behind `Diff`: exact under any hash, and the same equality as `ItemID`'s.
@Suite struct IdentityIndexTests {
    static let ids: [ItemID] = (0..<300).map { $0 % 2 == 0 ? .integer(Int64($0)) : .string("id-\($0)") }

    /// Every id filed under one hash: the table degrades to a scan but must still be exact.
    @Test func findsEveryIdWhenAllHashesCollide() throws {
        let index = try IdentityIndex(Self.ids, hash: { _ in 42 })
        for (position, id) in Self.ids.enumerated() {
            #expect(index.position(of: id, hash: 42) == position)
        }
        #expect(index.position(of: .integer(1), hash: 42) == nil)
        #expect(index.position(of: .string("id-0"), hash: 42) == nil)
    }

    @Test func findsEveryIdUnderTheRealHash() throws {
        let hasher = IdentityHasher()
        let index = try IdentityIndex(Self.ids, hash: hasher.hash)
        for (position, id) in Self.ids.enumerated() {
            #expect(index.position(of: id, hash: hasher.hash(id)) == position)
        }
        #expect(index.position(of: .integer(-1), hash: hasher.hash(.integer(-1))) == nil)
    }

    @Test(arguments: [false, true])
    func reportsADuplicateAtItsSecondPosition(colliding: Bool) {
        let ids: [ItemID] = [.integer(7), .string("a"), .integer(8), .string("a"), .integer(7)]
        let hasher = IdentityHasher()
        #expect {
            try IdentityIndex(ids, hash: colliding ? { _ in 0 } : hasher.hash)
        } throws: { error in
            (error as? IdentityIndex.Duplicate).map { $0.position == 3 && $0.earlier == 1 } ?? false
        }
    }

    @Test func anIntegerAndAStringWithTheSameDigitsAreDifferentIds() throws {
        let old = [Section(items: ItemSizes(count: 1), ids: [.integer(1)])]
        let new = [Section(items: ItemSizes(count: 1), ids: [.string("1")])]
        let batch = try Diff.batch(from: old, to: new)
        #expect(Set(batch.operations) == [.delete(ItemPath(section: 0, item: 0)), .insert(ItemPath(section: 0, item: 0), .unspecified, id: .string("1"))])
    }

    /// `ItemID` compares strings as Swift does (canonical equivalence), so the hash must agree:
    /// "é" as one scalar and as "e" plus a combining accent are the same id.
    @Test func canonicallyEquivalentStringsAreTheSameId() throws {
        let precomposed = ItemID.string("caf\u{E9}")
        let decomposed = ItemID.string("cafe\u{301}")
        #expect(precomposed == decomposed)
        let old = [Section(items: ItemSizes(count: 2), ids: [precomposed, .integer(2)])]
        let new = [Section(items: ItemSizes(count: 2), ids: [.integer(2), decomposed])]
        let batch = try Diff.batch(from: old, to: new)
        #expect(batch.operations.count == 1)
        #expect(DiffTests.counts(batch).moves == 1)
        #expect {
            try Diff.batch(from: old, to: [Section(items: ItemSizes(count: 2), ids: [precomposed, decomposed])])
        } throws: { error in
            (error as? LayoutError).map { $0.code == .invalidRequest && $0.path == "sections[0].ids[1]" } ?? false
        }
    }
}
