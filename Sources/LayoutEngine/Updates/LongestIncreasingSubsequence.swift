extension Diff {
    /// Marks one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    ///
    /// Over the old indices of matched items in new order, the marked items can stay where they are;
    /// every other matched item needs exactly one move, and no smaller set of moves exists.
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Bool] {
        // tails[k]: the position of the smallest value that ends an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var isMember = [Bool](repeating: false, count: values.count)
        var position = tails.last ?? -1
        while position >= 0 {
            isMember[position] = true
            position = previous[position]
        }
        return isMember
    }
}
