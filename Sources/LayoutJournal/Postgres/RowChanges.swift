/// What a run of changes does to each key's `layouts` row, as columns for `unnest`: the key's last
/// change's version, items and time, and the bytes and changes the run adds.
struct RowChanges {
    private(set) var namespaces: [String] = []
    private(set) var names: [String] = []
    private(set) var versions: [Int64] = []
    private(set) var items: [Int64] = []
    private(set) var changedAt: [Int64] = []
    private(set) var bytes: [Int64] = []
    private(set) var counts: [Int64] = []

    init(_ run: some Sequence<LoggedWrite>) {
        var rowOf: [JournalKey: Int] = [:]
        for logged in run {
            guard case .change(let key, let version, let items, let body) = logged.write else { continue }
            if let row = rowOf[key] {
                versions[row] = Int64(version)
                self.items[row] = Int64(items)
                changedAt[row] = logged.atMillis
                bytes[row] += Int64(body.count)
                counts[row] += 1
            } else {
                rowOf[key] = namespaces.count
                namespaces.append(key.namespace)
                names.append(key.name)
                versions.append(Int64(version))
                self.items.append(Int64(items))
                changedAt.append(logged.atMillis)
                bytes.append(Int64(body.count))
                counts.append(1)
            }
        }
    }
}
