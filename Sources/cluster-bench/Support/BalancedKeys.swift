import LayoutCluster

extension Rendezvous {
    /// `count` keys named `prefix-N`, half of which rendezvous hashing gives each of two workers,
    /// alternating, so that a bench's load splits evenly between them.
    static func balancedKeys(count: Int, over names: [String], prefix: String) -> [String] {
        let seeds = names.map(seed(forWorker:))
        var perWinner: [[String]] = [[], []]
        var index = 0
        while perWinner.map(\.count).min() ?? 0 < (count + 1) / 2 {
            let key = "\(prefix)-\(index)"
            index += 1
            if let winner = winner(keyHash: hash(key), seeds: seeds), winner < 2, perWinner[winner].count < (count + 1) / 2 {
                perWinner[winner].append(key)
            }
        }
        return Array(zip(perWinner[0], perWinner[1]).flatMap { [$0, $1] }.prefix(count))
    }
}
