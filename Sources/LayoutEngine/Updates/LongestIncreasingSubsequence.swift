extension Diff {
    /// Marks one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    ///
    /// Over the old indices of matched items in new order, the marked items can stay where they are;
    /// every other matched item needs exactly one move, and no smaller set of moves exists.
    /// 32-bit positions: a section holds far fewer items, and a diff of 10^6 items touches less memory.
    static func longestIncreasingSubsequence(_ values: [Int32]) -> [Bool] {
        // tails[k]: the position of the smallest value that ends an increasing run of length k + 1;
        // tailValues[k] that value, kept beside it so the search reads one array.
        var tails: [Int32] = []
        var tailValues: [Int32] = []
        var previous = [Int32](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            let position = Int32(truncatingIfNeeded: position)
            // Mostly-ordered input (a diff with few moves) extends the longest run: no search then.
            if let last = tailValues.last, last >= value {
                var low = 0
                var high = tailValues.count
                while low < high {
                    let mid = (low + high) / 2
                    if tailValues[mid] < value { low = mid + 1 } else { high = mid }
                }
                if low > 0 { previous[Int(position)] = tails[low - 1] }
                tails[low] = position
                tailValues[low] = value
            } else {
                if let last = tails.last { previous[Int(position)] = last }
                tails.append(position)
                tailValues.append(value)
            }
        }
        var isMember = [Bool](repeating: false, count: values.count)
        var position = Int(tails.last ?? -1)
        while position >= 0 {
            isMember[position] = true
            position = Int(previous[position])
        }
        return isMember
    }
}
