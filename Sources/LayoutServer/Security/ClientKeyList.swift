import ZeroMQ

/// The clients a daemon with CURVE admits, as `security.clientKeysFile` lists them.
///
/// The file has one client a line: its public key (Z85, 40 characters), then optionally a name, then
/// optionally the word `admin`:
///
/// ```
/// # comments start with '#'; blank lines are skipped
/// m:{k-j85kVgs/zI{mzB]<V*5V=Imv8&[OQAOY3T)                # an unnamed client: its namespace is its key
/// v(d/o=S:$q!tIG=dvKaH5N$x)ue4?ZxUw%WP=Kth  alice         # namespace "alice"
/// 7F$1f=<{:J8Yb<b6M!Uw/1?9=E3bPjDt$ZG*zbz?  ops admin
/// ```
///
/// A line whose first word starts with `#` is a comment (no key starts with `#`: the first character of
/// a Z85 group encodes at most 4294967295 / 85^4 = 82, and `#` is the 85th), and so is everything from a
/// word starting with `#` on. A name is 1 to 32 characters of `A-Z a-z 0-9 . _ -`: shorter than a key,
/// so a name never equals another entry's unnamed namespace. Entries that share a name share a
/// namespace, which is how a client rotates its key without losing its layouts. A key listed twice is an
/// error.
struct ClientKeyList: Sendable {
    /// One admitted key.
    struct Entry: Sendable, Hashable {
        var key: CurveKey
        /// The key in Z85: the User-Id the ZAP handler gives the connection.
        var userID: String
        var name: String?
        var isAdmin: Bool

        /// Where this client's layouts are kept: its name, or its key when it has none.
        var namespace: String { name ?? userID }

        var caller: Caller { Caller(namespace: namespace, isAdmin: isAdmin) }
    }

    /// By User-Id (the key in Z85).
    private(set) var entries: [String: Entry] = [:]
    /// Per namespace, the Z85 bytes of each of its keys: the topic prefixes its events are published under.
    private(set) var topicPrefixes: [String: [[UInt8]]] = [:]

    /// Nobody.
    init() {}

    /// Reads the list from the text of the file at `path` (named in errors).
    init(parsing text: String, path: String) throws(KeyFileError) {
        var lines: [CurveKey: Int] = [:]
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            guard let entry = try Self.entry(in: rawLine, path: path, line: number) else { continue }
            if let first = lines[entry.key] {
                throw KeyFileError(path: path, line: number, message: "key listed twice (first on line \(first))")
            }
            lines[entry.key] = number
            entries[entry.userID] = entry
            topicPrefixes[entry.namespace, default: []].append(Array(entry.userID.utf8))
        }
    }

    /// Adds `entry` (replacing a listed entry of the same key).
    mutating func insert(_ entry: Entry) {
        if let previous = entries[entry.userID] {
            topicPrefixes[previous.namespace]?.removeAll { $0 == Array(previous.userID.utf8) }
            if topicPrefixes[previous.namespace]?.isEmpty == true { topicPrefixes[previous.namespace] = nil }
        }
        entries[entry.userID] = entry
        topicPrefixes[entry.namespace, default: []].append(Array(entry.userID.utf8))
    }

    /// The entry of the key whose Z85 form is `userID`.
    func entry(userID: String) -> Entry? {
        entries[userID]
    }

    /// The entry of `key`.
    func entry(for key: CurveKey) -> Entry? {
        entries[key.z85]
    }

    var count: Int { entries.count }
    var adminCount: Int { entries.values.count(where: \.isAdmin) }
    var namespaceCount: Int { topicPrefixes.count }

    /// The entry on `line`, nil for a blank line or a comment.
    private static func entry(in line: Substring, path: String, line number: Int) throws(KeyFileError) -> Entry? {
        var words = line.split(whereSeparator: \.isWhitespace)
        guard let first = words.first, !first.hasPrefix("#") else { return nil }
        guard let key = CurveKey(z85: first) else {
            throw KeyFileError(path: path, line: number, message: "\"\(first.prefix(48))\" is not a public key (40 characters of Z85)")
        }
        if let comment = words.firstIndex(where: { $0.hasPrefix("#") }) {
            words.removeSubrange(comment...)
        }
        guard words.count <= 3 else {
            throw KeyFileError(path: path, line: number, message: "expected a key, a name and \"admin\" at most, found \(words.count) words")
        }
        var name: String?
        if words.count >= 2 {
            let word = words[1]
            guard Self.isValidName(word) else {
                throw KeyFileError(path: path, line: number, message: "\"\(word.prefix(48))\" is not a name: 1 to 32 characters of A-Z a-z 0-9 . _ -")
            }
            name = String(word)
        }
        if words.count == 3, words[2] != "admin" {
            throw KeyFileError(path: path, line: number, message: "the third word must be \"admin\", not \"\(words[2].prefix(48))\"")
        }
        return Entry(key: key, userID: key.z85, name: name, isAdmin: words.count == 3)
    }

    private static func isValidName(_ word: Substring) -> Bool {
        (1...32).contains(word.utf8.count) && word.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
