import LayoutTestKit
import Testing
@testable import LayoutWire

/// The text `JSONWriter` writes for one Double.
private func text(_ value: Double) -> String {
    var writer = JSONWriter()
    writer.write(value)
    return String(decoding: writer.finish(), as: UTF8.self)
}

@Suite struct NumberFormattingTests {
    @Test func writesIntegralValuesAsIntegers() {
        #expect(text(0) == "0")
        #expect(text(36) == "36")
        #expect(text(-1024) == "-1024")
        #expect(text(9_007_199_254_740_992) == "9007199254740992")
        #expect(text(-9_007_199_254_740_992) == "-9007199254740992")
        #expect(text(1_234_567_890) == "1234567890")
    }

    @Test func writesNegativeZeroAsZero() {
        #expect(text(-0.0) == "0")
    }

    @Test func writesShortDecimalsAsTheStandardLibraryDoes() {
        for value in [0.5, -0.25, 20.5, 187.5, 0.1, 0.3, 1.125, 33.333, 0.001, 123456.789, -7.000001] {
            #expect(text(value) == value.description, "\(value)")
        }
    }

    @Test func writesNonFiniteValuesAsNull() {
        #expect(text(.nan) == "null")
        #expect(text(.infinity) == "null")
    }

    @Test func everyWrittenNumberIsJSONAndParsesBackBitIdentical() throws {
        var generator = SeededGenerator(seed: 99)
        var values: [Double] = [
            .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .ulpOfOne, 1e-7, 1e15 + 0.5, 2e53, 9_007_199_254_740_994, 1e20, 1e21, 1e22, 1e23, 123e-300,
            0.1 + 0.2, 1.0 / 3, 2.0 / 3, 100.0 / 7, 4.35, 0.000123456789, Double.leastNormalMagnitude.nextDown, Double.leastNonzeroMagnitude.nextUp,
        ]
        for _ in 0..<20_000 {
            // Any bit pattern: tiny, huge and subnormal values included.
            values.append(Double(bitPattern: generator.next()))
            // Layout-like values: short decimals, thirds, halves.
            values.append(Double(Int.random(in: -100_000...100_000, using: &generator)) / Double([1, 2, 3, 4, 8, 10, 100, 1000, 7].randomElement(using: &generator) ?? 1))
        }
        for value in values where value.isFinite {
            let written = text(value)
            let bytes = Array(written.utf8)
            #expect(syntaxError(bytes) == nil, "\(written) is not JSON")
            // Two independent parsers: the standard library's and this module's reader.
            let parsed = try #require(Double(written), "\(written)")
            guard case .number(let number) = try parseJSON(bytes) else {
                Issue.record("\(written) did not parse as a number")
                continue
            }
            let expected = value == 0 ? 0.0 : value
            #expect(parsed.bitPattern == expected.bitPattern, "\(value) written as \(written)")
            #expect(number.value.bitPattern == expected.bitPattern, "\(value) written as \(written)")
        }
    }

    @Test func isNoLongerThanTheShortestRoundTripForm() {
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<20_000 {
            let value = Double(Int.random(in: -10_000_000...10_000_000, using: &generator)) / Double([3, 7, 10, 16, 100, 1000, 100_000].randomElement(using: &generator) ?? 1)
            let written = text(value)
            // The standard library prints the shortest digits that round-trip; ours must be the same
            // text wherever it uses no exponent (integral values drop its ".0").
            guard !value.description.contains("e") else { continue }
            let expected = value == value.rounded() ? String(Int64(value)) : value.description
            #expect(written == expected, "\(value)")
        }
    }

    @Test func writesIntegersAtEveryLength() {
        var value: Int64 = 1
        for _ in 0..<18 {
            for candidate in [value, value - 1, value + 1, -value, -(value - 1)] {
                var writer = JSONWriter()
                writer.write(candidate)
                #expect(String(decoding: writer.finish(), as: UTF8.self) == String(candidate))
            }
            value *= 10
        }
        var writer = JSONWriter()
        writer.write(Int64.min)
        writer.write(byte: UInt8(ascii: " "))
        writer.write(Int64.max)
        #expect(String(decoding: writer.finish(), as: UTF8.self) == "\(Int64.min) \(Int64.max)")
    }

    @Test func escapesStrings() {
        var writer = JSONWriter()
        writer.write("a\"b\\c\nd\te\r\u{1}\u{1F}é😀/")
        #expect(String(decoding: writer.finish(), as: UTF8.self) == #""a\"b\\c\nd\te\r\u0001\u001fé😀/""#)
    }

    @Test func growsPastItsInitialCapacity() {
        var writer = JSONWriter(capacity: 1)
        var expected = ""
        for i in 0..<5000 {
            writer.write(Double(i) + 0.5)
            writer.write(byte: UInt8(ascii: ","))
            expected += "\(Double(i) + 0.5),"
        }
        #expect(String(decoding: writer.finish(), as: UTF8.self) == expected)
    }
}
