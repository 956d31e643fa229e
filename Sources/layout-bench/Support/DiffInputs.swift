import LayoutTestKit
import LayoutEngine

/// How the items of a diff input are identified.
enum IDType: String, CaseIterable, Sendable {
    /// `ItemID.integer`: the cheapest to hash.
    case integer
    /// `ItemID.string` in UUID form (36 characters, so each one lives on the heap as real ids do).
    case string
}

/// Two versions of one section for the diff benchmark, the same every run.
///
/// `old` holds ids 0..<n. `new` loses a seeded 10 % of them, gains 10 % new ids at random places, and has
/// 2 % of the survivors moved, each to a random place. Every item's height follows from its id, so a
/// matched item never changes sizing: the batch has deletes, inserts and moves only.
struct DiffInputs: Sendable {
    static let deletedShare = 0.10
    static let insertedShare = 0.10
    static let movedShare = 0.02

    let idCount: Int
    let idType: IDType
    let old: Section
    let new: Section

    init(ids count: Int, idType: IDType, seed: UInt64 = 0xD1FF) {
        idCount = count
        self.idType = idType
        var random = SeededGenerator(seed: seed)
        let deletedCount = Int(Double(count) * Self.deletedShare)
        let movedCount = Int(Double(count) * Self.movedShare)
        let insertedCount = Int(Double(count) * Self.insertedShare)

        // A random choice of distinct items: the first of a seeded shuffle are deleted, the next moved.
        let chosen = Array(0..<count).shuffled(using: &random)
        var fate = [UInt8](repeating: 0, count: count)
        for i in chosen.prefix(deletedCount) { fate[i] = 1 }
        for i in chosen.dropFirst(deletedCount).prefix(movedCount) { fate[i] = 2 }

        // Survivors keep their place as a sort key; moved and inserted items get a random one, which puts
        // them at a random place in one sort instead of 10^5 array inserts.
        var placed: [(key: Double, id: Int)] = []
        placed.reserveCapacity(count - deletedCount + insertedCount)
        for i in 0..<count where fate[i] != 1 {
            placed.append((fate[i] == 2 ? Double.random(in: 0..<Double(count), using: &random) : Double(i), i))
        }
        for k in 0..<insertedCount {
            placed.append((Double.random(in: 0..<Double(count), using: &random), count + k))
        }
        placed.sort { $0.key < $1.key }

        old = Self.section(ids: Array(0..<count), idType: idType)
        new = Self.section(ids: placed.map(\.id), idType: idType)
    }

    private static func section(ids: [Int], idType: IDType) -> Section {
        let heights = ids.map(height(of:))
        let items = ItemSizes(count: ids.count, heights: heights) ?? ItemSizes(count: ids.count)
        return Section(items: items, ids: ids.map { itemID($0, idType) })
    }

    /// 40–239 points, a function of the id alone.
    private static func height(of id: Int) -> Double {
        Double(40 + (id &* 7919) % 200)
    }

    private static func itemID(_ id: Int, _ type: IDType) -> ItemID {
        switch type {
        case .integer:
            return .integer(Int64(id))
        case .string:
            // The id's SplitMix hash in UUID form: distinct ids give distinct strings, 36 characters each.
            var generator = SeededGenerator(seed: UInt64(id))
            let high = String(generator.next(), radix: 16)
            let low = String(generator.next(), radix: 16)
            let hex = Array(String(repeating: "0", count: 16 - high.count) + high + String(repeating: "0", count: 16 - low.count) + low)
            return .string([hex[0..<8], hex[8..<12], hex[12..<16], hex[16..<20], hex[20..<32]].map { String($0) }.joined(separator: "-"))
        }
    }
}
