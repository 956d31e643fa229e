/// Rows of text in aligned columns: text columns to the left, number columns to the right.
struct TextTable {
    enum Alignment { case left, right }

    let headers: [String]
    let alignments: [Alignment]
    private(set) var rows: [[String]] = []

    init(_ columns: [(header: String, alignment: Alignment)]) {
        headers = columns.map(\.header)
        alignments = columns.map(\.alignment)
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The header and the rows, two spaces between columns, no trailing spaces.
    func rendered() -> [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return ([headers] + rows).map { row in
            var line = ""
            for (column, cell) in row.enumerated() where column < widths.count {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column > 0 { line += "  " }
                line += alignments[column] == .left ? cell + padding : padding + cell
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
