import LayoutTestKit
import LayoutEngine
import Testing
@testable import LayoutWire

@Suite struct JSONReaderStrictnessTests {
    @Test(arguments: [
        "{} x", "[1] [2]", "1 2", "{\"a\":1}}", "nul", "tru", "[1,]", "{\"a\":1,}", "[01]", "[-01]", "[1.]",
        "[.5]", "[+1]", "[1e]", "[1e+]", "[NaN]", "[Infinity]", "[-Infinity]", "[nan]", "['a']", "{a:1}",
        "[\"\\x\"]", "[\"\\u12\"]", "[\"\\uZZZZ\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]",
        "[\"a\nb\"]", "[\"a\tb\"]", "[\"abc]", "", "   ", "[1,2", "{\"a\"}", "{\"a\" 1}", "[0x10]", "[1_000]",
        "[\"\\ud83d\"]", "[true false]",
    ])
    func rejectsInvalidJSON(_ text: String) {
        let error = syntaxError(Array(text.utf8))
        #expect(error?.code == .invalidJSON, "accepted \(text)")
    }

    @Test(arguments: [
        "{}", "[]", " [ 1 , 2 ] ", "0", "-0", "0.5", "1e5", "1E+5", "1e-5", "-1.25e-3", "\"\"", "true", "null",
        "{\"a\":{\"b\":[1,{\"c\":null}]}}", "\"\\u00e9\\ud83d\\ude00\"", "\"é😀\"", "[1e309]", "\t\n\r [] \n",
    ])
    func acceptsValidJSON(_ text: String) {
        #expect(syntaxError(Array(text.utf8)) == nil, "rejected \(text)")
    }

    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],               // never valid
            [0x22, 0xC3, 0x22],               // truncated
            [0x22, 0xC0, 0xAF, 0x22],         // overlong '/'
            [0x22, 0xED, 0xA0, 0x80, 0x22],   // UTF-8 encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
            [0x5B, 0xC3, 0xA9, 0x5D],         // non-ASCII outside a string
        ]
        for bytes in cases {
            #expect(syntaxError(bytes)?.code == .invalidJSON, "accepted \(bytes)")
        }
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(syntaxError(Array(deep.utf8))?.code == .tooLarge)
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(syntaxError(Array(fine.utf8)) == nil)
    }

    @Test func reportsTheByteOffsetOfASyntaxError() {
        let error = syntaxError(Array("[1, 2, x]".utf8))
        #expect(error?.message.hasSuffix("at byte 7") == true, "\(String(describing: error))")
    }
}

@Suite struct JSONReaderStringTests {
    @Test func unescapesEveryEscape() throws {
        let value = try parseJSON(#"["\"\\\/\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00"]"#)
        #expect(value == .array([.string("\"\\/\u{8}\u{C}\n\r\tAé€😀")]))
    }

    @Test func keepsRawUTF8() throws {
        #expect(try parseJSON("\"héllo 😀\"") == .string("héllo 😀"))
    }

    @Test func unescapesMemberNames() throws {
        let value = try parseJSON(#"{"h\u0065ight":1}"#)
        #expect(value == .object(JSONObject(members: [.init(key: "height", value: .number(JSONNumber(text: "1", value: 1)))])))
    }

    @Test func readsEscapedNulCharacters() throws {
        #expect(try parseJSON(#""a\u0000b""#) == .string("a\u{0}b"))
    }
}

@Suite struct JSONReaderNumberTests {
    /// The reader's Double for a number token.
    func number(_ text: String) throws -> Double {
        guard case .number(let number) = try parseJSON(text) else { throw TestFailure("not a number") }
        return number.value
    }

    @Test(arguments: [
        "0", "-0", "1", "-1", "0.1", "0.5", "20.5", "123456789012345", "1234567890123456", "9007199254740992",
        "9007199254740993", "9007199254740995", "18446744073709551615", "18446744073709551616",
        "123456789012345678901234567890", "0.000001", "1e22", "1e23", "1.7976931348623157e308",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9e-324", "5e-324", "2.4703282292062328e-324",
        "1e-400", "0e999999", "3.141592653589793238462643383279", "0.30000000000000004", "100000000000000000000000",
        "-1.5e-7", "7.0E+2", "1E0",
    ])
    func readsTheNearestDouble(_ text: String) throws {
        // The standard library's parser is correctly rounded and independent of this reader.
        let expected = try #require(Double(text))
        let value = try number(text)
        #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) vs \(expected)")
    }

    @Test func readsRandomDecimalsExactly() throws {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...22, using: &generator)
            var text = Bool.random(using: &generator) ? "-" : ""
            let mantissa = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            let trimmed = String(mantissa.drop { $0 == "0" })
            text += trimmed.isEmpty ? "0" : trimmed
            if Bool.random(using: &generator) {
                text += "." + (0..<Int.random(in: 1...18, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            }
            if Int.random(in: 0..<3, using: &generator) == 0 {
                text += "e\(Int.random(in: -330...300, using: &generator))"
            }
            let expected = try #require(Double(text))
            guard expected.isFinite else { continue }
            let value = try number(text)
            #expect(value.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    @Test func keepsIntegerIdsExact() throws {
        let body = Array(#"{"ids":[9007199254740993,-9223372036854775808,9223372036854775807,1e3,2.0]}"#.utf8)
        let ids = try body.withUnsafeBytes { buffer throws -> [ItemID] in
            var reader = JSONReader(buffer)
            _ = try reader.beginObject()
            _ = try reader.readKey()
            return try ColumnDecoder.ids(&reader, at: .root / "ids")
        }
        #expect(ids == [.integer(9_007_199_254_740_993), .integer(.min), .integer(.max), .integer(1000), .integer(2)])
    }

    @Test(arguments: ["9223372036854775808", "1.5", "-9223372036854775809", "1e19"])
    func rejectsIdsThatAreNotSixtyFourBitIntegers(_ text: String) {
        let body = layoutBody(sections: #"[{"ids":[\#(text)]}]"#)
        let error = decodingError(body)
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "sections[0].ids[0]")
    }
}

@Suite struct BulkNumberTests {
    @Test func readsPlainNumbersInlineAndLeavesTheRestToTheGeneralPath() {
        func read(_ text: String) -> (value: Double?, consumed: Int) {
            let bytes = Array((text + String(repeating: " ", count: 40)).utf8)
            return bytes.withUnsafeBytes { buffer in
                var reader = JSONReader(buffer)
                let value = reader.readSimpleNumber()
                return (value, reader.offset)
            }
        }
        for text in ["0", "7", "-0", "20.5", "1234567", "1234567.1234567", "123456789012345", "0.00000000000001", "-99.25"] {
            let (value, consumed) = read(text + ",")
            #expect(value?.bitPattern == Double(text)?.bitPattern, "\(text)")
            #expect(consumed == text.utf8.count, "\(text)")
        }
        for text in ["1234567890123456", "1.234567890123456", "0.000000000000001", "1e5", "1.5E2", "01", "-", "-x", ".5", "1.", "1.e5", "x", "\"1\""] {
            let (value, consumed) = read(text + ",")
            #expect(value == nil, "\(text)")
            #expect(consumed == 0, "\(text)")
        }
    }
}
