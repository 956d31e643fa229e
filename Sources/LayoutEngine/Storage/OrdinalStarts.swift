extension RandomAccessCollection where Element == Int, Index == Int {
    /// For ascending section starts (first element ordinal of each section, the total last): the
    /// section holding `ordinal`, i.e. the last start <= ordinal. Empty sections share their start with
    /// the next one, so the search skips them.
    func section(holdingOrdinal ordinal: Int) -> Int {
        var low = startIndex
        var high = endIndex - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if self[mid] <= ordinal { low = mid } else { high = mid - 1 }
        }
        return low
    }
}
