extension ItemSizes {
    /// Items given one by one, built column by column.
    ///
    /// Not `ItemSizes(_:)`: appending to an empty `ItemSizes` materialises a column of length 0, which
    /// still reads as "absent", so the first item's fields are dropped.
    init(columnsOf items: [ItemSizing]) {
        func column(_ field: (ItemSizing) -> Double?) -> [Double] {
            items.contains { field($0) != nil } ? items.map { field($0) ?? .nan } : []
        }
        let spans = items.contains(where: \.isSpan) ? items.map(\.isSpan) : []
        // Every column is empty or `items.count` long, so the failable init cannot fail.
        self = ItemSizes(count: items.count, heights: column(\.height), aspectRatios: column(\.aspectRatio), widths: column(\.width), spans: spans)
            ?? ItemSizes(count: items.count)
    }
}
