/// Hostile variants of valid requests, reproducible from a seed: shared by the fault-tolerance tests and
/// the soak suite (`layoutd-soak`), so both throw the same kinds of damage at the daemon.
public enum RequestMutator {
    /// What is done to a body.
    public enum Kind: String, CaseIterable, Sendable {
        /// One to three bytes set to random values.
        case byteFlip
        /// One byte removed.
        case deletion
        /// Cut short anywhere.
        case truncation
        /// A value replaced by a hostile one (-1, 1e309, "", [], huge integers, …).
        case hostileValue
        /// A value replaced by arrays nested `nestingDepth` deep, closed or left open.
        case deepNesting
        /// A value replaced by a string of `hugeStringBytes` bytes (with escapes).
        case hugeString
        /// A value replaced by NaN, Infinity and their kin, which JSON does not have.
        case nonFiniteLiteral
        /// A string holding an unpaired UTF-16 surrogate, escaped or as raw (CESU-8) bytes.
        case loneSurrogate
        /// A member repeated (`op`, `id`, `sections`, `layout`).
        case duplicateKey
        /// Bytes that are not UTF-8 put somewhere in the body.
        case invalidUTF8
        /// Item and section counts far past every limit.
        case hugeCount
        /// More frames than one body, or none of the delimiter.
        case extraFrames
    }

    /// A mutated request: the frames to send, and whether the empty delimiter goes first.
    public struct Mutation: Sendable {
        public var kind: Kind
        public var frames: [[UInt8]]
        public var withDelimiter: Bool
    }

    /// Valid requests of every op; `ID` stands where the id goes (a number, see `body(_:id:)`).
    /// They run in this order on one connection: `f` is prepared before it is queried and changed.
    public static let validBodies = [
        #"{"v":1,"id":ID,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"mosaic"},"sections":[{"count":12}]}"#,
        #"{"v":1,"id":ID,"op":"prepare","layout":"f","bounds":{"width":300,"height":500},"spec":{"type":"flow","rowTransform":"fill"},"decorations":{"sectionBackground":true},"sections":[{"items":[{"width":50,"height":20},{"span":true,"height":10},{"width":80,"height":20}],"header":12,"params":{"interitemSpacing":4}}]}"#,
        #"{"v":1,"id":ID,"op":"query","layout":"f","rect":{"x":0,"y":0,"width":300,"height":100}}"#,
        #"{"v":1,"id":ID,"op":"update","layout":"f","updates":[{"insert":[0,1],"item":{"width":30,"height":20}},{"move":[[0,0],[0,2]]}]}"#,
        #"{"v":1,"id":ID,"op":"diff","layout":"f","sections":[{"ids":["a","b"],"heights":[3,4]}]}"#,
        #"{"v":1,"id":ID,"op":"bounds","layout":"f","bounds":{"width":320,"height":500}}"#,
        #"{"v":1,"id":ID,"op":"layout","bounds":{"width":400,"height":500},"spec":{"type":"columns","placement":"shortestFirst","sectionInsets":{"left":4}},"sections":[{"aspectRatios":[1,2,0.5],"heights":[1,null,3]}]}"#,
        #"{"v":1,"id":ID,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"list"},"sections":[{"ids":["x","y","z"],"heights":[10,20,30]}]}"#,
        #"{"v":1,"id":ID,"op":"ping"}"#,
        #"{"v":1,"id":ID,"op":"list"}"#,
    ]

    /// The error codes a malformed request may get.
    public static let expectedCodes: Set<String> = [
        "invalid_json", "invalid_request", "unknown_op", "unknown_layout", "invalid_update", "version_conflict", "too_large",
    ]

    /// `validBodies[index]` with its id.
    public static func body(_ index: Int, id: Int) -> [UInt8] {
        Array(validBodies[index % validBodies.count].replacingID(with: id).utf8)
    }

    private static let hostileValues: [[UInt8]] = [
        "-1", "1e309", "-1e309", "null", "\"\"", "[]", "{}", "99999999999999999999", "\"\\ud800\"", "true", "-0", "1e18",
        "\"x\"", "4294967296", "9223372036854775808", "-9223372036854775809", "0.0000000001", "1E+400", "0x10", "01",
        "\"\\u0000\"", "[[[]]]", "{\"a\":{\"b\":[]}}", "1.", ".5", "+1", "tru", "nul",
    ].map { Array($0.utf8) }

    private static let nonFinite: [[UInt8]] = ["NaN", "Infinity", "-Infinity", "+Infinity", "nan", "inf", "-inf", "1e999", "NaN.0"].map { Array($0.utf8) }

    private static let notUTF8: [[UInt8]] = [
        [0xFF], [0xFE, 0xFF], [0xC0, 0x80], [0xE2, 0x82], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
    ]

    /// Mutates `body` in the way `kind` says.
    /// - Parameters:
    ///   - nestingDepth: how deep `deepNesting` nests (the soak uses 10^5).
    ///   - hugeStringBytes: how long a `hugeString` is (the soak uses 1 MB).
    public static func mutate(
        _ body: [UInt8], kind: Kind, nestingDepth: Int = 100_000, hugeStringBytes: Int = 1 << 20,
        using rng: inout SeededGenerator
    ) -> Mutation {
        var bytes = body
        var frames: [[UInt8]]?
        var withDelimiter = true
        switch kind {
        case .byteFlip:
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
        case .deletion:
            if !bytes.isEmpty { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng)) }
        case .truncation:
            bytes = Array(bytes.prefix(Int.random(in: 0..<max(1, bytes.count), using: &rng)))
        case .hostileValue:
            replaceValue(in: &bytes, with: hostileValues.randomElement(using: &rng) ?? [], using: &rng)
        case .deepNesting:
            let depth = Int.random(in: (nestingDepth / 2)...max(nestingDepth / 2, nestingDepth), using: &rng)
            var nested = [UInt8](repeating: UInt8(ascii: "["), count: depth)
            if Bool.random(using: &rng) { nested += [UInt8](repeating: UInt8(ascii: "]"), count: depth) }
            replaceValue(in: &bytes, with: nested, using: &rng)
        case .hugeString:
            // A random block of about 4 KiB, repeated: random enough, and cheap to make at 1 MB.
            let pieces: [[UInt8]] = ["abcdefgh", "\\u00e9", "\\n", "\\\"", "é", "\\ud83d\\ude00"].map { Array($0.utf8) }
            var block: [UInt8] = []
            while block.count < 4096 {
                block += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            }
            var string: [UInt8] = [UInt8(ascii: "\"")]
            string.reserveCapacity(hugeStringBytes + block.count + 2)
            while string.count < hugeStringBytes {
                string += block
            }
            string.append(UInt8(ascii: "\""))
            replaceValue(in: &bytes, with: string, using: &rng)
        case .nonFiniteLiteral:
            replaceValue(in: &bytes, with: nonFinite.randomElement(using: &rng) ?? [], using: &rng, numbersOnly: true)
        case .loneSurrogate:
            let surrogates: [[UInt8]] = [
                Array("\"\\ud800\"".utf8), Array("\"a\\udc00b\"".utf8), Array("\"\\ud800\\ud800\"".utf8),
                Array("\"\\udfff\\ud800\"".utf8), [UInt8(ascii: "\""), 0xED, 0xA0, 0x80, UInt8(ascii: "\"")],
            ]
            replaceValue(in: &bytes, with: surrogates.randomElement(using: &rng) ?? [], using: &rng)
        case .duplicateKey:
            let duplicates = [#""op":"ping","#, #""id":"dup","#, #""sections":[],"#, #""layout":"other","#, #""v":2,"#, #""op":"layout","#]
            if bytes.first == UInt8(ascii: "{") {
                let duplicate = Array((duplicates.randomElement(using: &rng) ?? "").utf8)
                // At the front or at the back: a duplicate before or after the member it repeats.
                if Bool.random(using: &rng) {
                    bytes.insert(contentsOf: duplicate, at: 1)
                } else if bytes.last == UInt8(ascii: "}") {
                    bytes.insert(contentsOf: [UInt8(ascii: ",")] + duplicate.dropLast(), at: bytes.count - 1)
                }
            }
        case .invalidUTF8:
            let insert = notUTF8.randomElement(using: &rng) ?? []
            bytes.insert(contentsOf: insert, at: Int.random(in: 0...bytes.count, using: &rng))
        case .hugeCount:
            let counts = ["1000000000000", "9223372036854775807", "99999999999999999999", "1e308", "10000001", "-5", "1.5", "4294967297"]
            let count = counts.randomElement(using: &rng) ?? "0"
            if Int.random(in: 0..<8, using: &rng) == 0 {
                // Past `limits.maxSections`: many empty sections in a body of about 1 MB.
                bytes = manySections
            } else {
                bytes = Array(#"{"v":1,"id":0,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"mosaic"},"sections":[{"count":\#(count)}]}"#.utf8)
            }
        case .extraFrames:
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: frames = [bytes, bytes]
            case 1: frames = [bytes, [], Array("garbage".utf8)]
            case 2: frames = [[], bytes]
            default:
                frames = [bytes]
                withDelimiter = false
            }
        }
        return Mutation(kind: kind, frames: frames ?? [bytes], withDelimiter: withDelimiter)
    }

    /// A `layout` of 100,001 empty sections, made once.
    private static let manySections: [UInt8] = {
        var bytes = Array(#"{"v":1,"id":0,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"list"},"sections":["#.utf8)
        let section = Array(#"{"count":0},"#.utf8)
        bytes.reserveCapacity(bytes.count + section.count * 100_001 + 4)
        for _ in 0..<100_001 { bytes += section }
        bytes.removeLast()
        return bytes + Array("]}".utf8)
    }()

    /// Replaces the value after a random colon (up to the next `,`, `}` or `]`) with `value`.
    private static func replaceValue(in bytes: inout [UInt8], with value: [UInt8], using rng: inout SeededGenerator, numbersOnly: Bool = false) {
        var colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
        if numbersOnly {
            let numeric = colons.filter { $0 + 1 < bytes.count && (bytes[$0 + 1] == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0 + 1])) }
            if !numeric.isEmpty { colons = numeric }
        }
        guard let colon = colons.randomElement(using: &rng) else {
            bytes += value
            return
        }
        var end = colon + 1
        let stops: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]
        while end < bytes.count, !stops.contains(bytes[end]) { end += 1 }
        bytes.replaceSubrange((colon + 1)..<end, with: value)
    }
}

extension String {
    /// `ID` replaced by the number.
    fileprivate func replacingID(with id: Int) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.range(of: "ID") {
            result += rest[..<range.lowerBound]
            result += String(id)
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension Substring {
    /// The first occurrence of `pattern` (no Foundation here).
    fileprivate func range(of pattern: String) -> Range<Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(pattern) {
                return index..<(self.index(index, offsetBy: pattern.count))
            }
            index = self.index(after: index)
        }
        return nil
    }
}
