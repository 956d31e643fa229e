/// `list`'s result: a page of the kept layouts in key order, and where the next page starts.
public struct ListResult: WireResult, Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var layout: String
        public var version: Int
        public var items: Int
        public var bytes: Int
        /// The owner's namespace, shown only to an admin of a daemon with CURVE (whose `list` covers
        /// every namespace); nil leaves the member out.
        public var namespace: String?

        public init(layout: String, version: Int, items: Int, bytes: Int, namespace: String? = nil) {
            self.layout = layout
            self.version = version
            self.items = items
            self.bytes = bytes
            self.namespace = namespace
        }

        /// The text that names this entry as a cursor (`after`, `next`): its key, or for an entry of
        /// an admin's list (which names its namespace) a `ListCursor`'s text.
        public var cursor: String {
            namespace.map { ListCursor(namespace: $0, name: layout).text } ?? layout
        }
    }

    public var layouts: [Entry]
    /// Present only when more keys remain after this page: the `after` of the next one.
    public var next: String?

    public init(layouts: [Entry], next: String? = nil) {
        self.layouts = layouts
        self.next = next
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"layouts\":[")
        for (index, entry) in layouts.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(raw: "{\"layout\":")
            writer.write(entry.layout)
            writer.write(raw: ",\"version\":")
            writer.write(entry.version)
            writer.write(raw: ",\"items\":")
            writer.write(entry.items)
            writer.write(raw: ",\"bytes\":")
            writer.write(entry.bytes)
            if let namespace = entry.namespace {
                writer.write(raw: ",\"namespace\":")
                writer.write(namespace)
            }
            writer.write(byte: UInt8(ascii: "}"))
        }
        writer.write(byte: UInt8(ascii: "]"))
        if let next {
            writer.write(raw: ",\"next\":")
            writer.write(next)
        }
        writer.write(byte: UInt8(ascii: "}"))
    }

    public var estimatedByteCount: Int {
        48 + (next?.utf8.count ?? 0) + layouts.reduce(0) { $0 + 80 + $1.layout.utf8.count + ($1.namespace?.utf8.count ?? 0) }
    }
}
