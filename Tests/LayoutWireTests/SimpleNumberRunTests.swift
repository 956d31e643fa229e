import LayoutTestKit
import LayoutEngine
import Testing
@testable import LayoutWire

/// The bulk loop of size columns (`JSONReader.appendSimpleNumbers`): the values it reads, where it hands
/// over to the general path, and that errors inside long columns are reported as before.
@Suite struct SimpleNumberRunTests {
    func heights(_ texts: [String]) throws -> [Double] {
        let body = layoutBody(sections: #"[{"heights":[\#(texts.joined(separator: ","))]}]"#)
        return try layoutInput(body).sections[0].items.heights
    }

    /// Number texts of every shape a column may hold: integer and fraction parts short and long (the
    /// loop reads up to 15 digits in all), exponents, zeros with and without a sign.
    static func numberTexts(count: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var texts: [String] = []
        for _ in 0..<count {
            let integerDigits = Int.random(in: 1...10, using: &generator)
            var text = String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<integerDigits { text += String(Int.random(in: 0...9, using: &generator)) }
            if Bool.random(using: &generator) { text = "0" }
            let fractionDigits = Int.random(in: 0...10, using: &generator)
            if fractionDigits > 0 {
                text += "."
                for _ in 0..<fractionDigits { text += String(Int.random(in: 0...9, using: &generator)) }
            }
            if Int.random(in: 0..<8, using: &generator) == 0 { text += "e" + String(Int.random(in: -5...5, using: &generator)) }
            texts.append(text)
        }
        return texts + ["0", "-0", "-0.0", "0.0", "1234567.1234567", "12345678", "0.12345678", "9999999.9999999", "999999999999999", "9999999999999999", "12345678901234567", "123456789012345678.5", "12345678901234.5", "1234567890123.45678", "0.000000000000001", "0.0000000000000001", "123456789012345.1234567890123456", "1E2", "2.5e+1"]
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func readsEveryNumberAsTheStandardLibraryDoes(seed: UInt64) throws {
        let texts = Self.numberTexts(count: 3000, seed: seed)
        let decoded = try heights(texts)
        #expect(decoded.count == texts.count)
        for (text, value) in zip(texts, decoded) {
            let expected = try #require(Double(text))
            #expect(value.bitPattern == expected.bitPattern, "\(text) read as \(value)")
        }
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let decoded = try heights(Array(repeating: "-0", count: 20) + Array(repeating: "-0.0", count: 20))
        #expect(decoded.allSatisfy { $0 == 0 && $0.sign == .minus })
    }

    @Test func whitespaceAndNullsBetweenSimpleNumbersAreRead() throws {
        var texts = Array(repeating: "12.5", count: 60)
        texts[10] = " 3"
        texts[11] = "4 "
        texts[30] = "null"
        texts[31] = "\n 7.25\t"
        let decoded = try heights(texts)
        #expect(decoded[9] == 12.5)
        #expect(decoded[10] == 3)
        #expect(decoded[11] == 4)
        #expect(decoded[12] == 12.5)
        #expect(decoded[31] == 7.25)
        #expect(decoded.count == 60)
        // A column with a null keeps it as "not set".
        #expect(decoded[30].isNaN)
    }

    @Test func stopsAtTheFirstElementItDoesNotRead() throws {
        let text = "1,2.5,1e3,4]" + String(repeating: " ", count: 40)
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var values = ColumnBuffer<Double>()
            #expect(!reader.appendSimpleNumbers(to: &values, rule: .nonNegative))
            #expect(reader.offset == 6)
            #expect(values.count == 2)
            // After the general path read 1e3: one more number, stopping before the bracket.
            reader.offset = 10
            #expect(reader.appendSimpleNumbers(to: &values, rule: .nonNegative))
            #expect(reader.offset == 11)
            #expect(values.count == 3)
            let array = values.array()
            #expect(array == [1, 2.5, 4])
            _ = try #require(array.last)
        }
    }

    @Test func leavesTheLastBytesOfTheBodyToTheGeneralPath() throws {
        let bytes = Array("1,2,3]".utf8)
        bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var values = ColumnBuffer<Double>()
            #expect(!reader.appendSimpleNumbers(to: &values, rule: .nonNegative))
            #expect(reader.offset == 0)
            #expect(values.count == 0)
        }
    }

    @Test func errorsInALongColumnKeepTheirCodeMessageAndPath() {
        func error(at index: Int, _ text: String, column: String = "heights") -> WireError? {
            var texts = Array(repeating: "20.5", count: 100)
            texts[index] = text
            return decodingError(layoutBody(sections: #"[{"\#(column)":[\#(texts.joined(separator: ","))]}]"#))
        }
        let negative = error(at: 40, "-5")
        #expect(negative?.code == .invalidRequest)
        #expect(negative?.path == "sections[0].heights[40]")
        #expect(negative?.message == "must be a number >= 0, not -5.0")
        let zeroRatio = error(at: 41, "0", column: "aspectRatios")
        #expect(zeroRatio?.path == "sections[0].aspectRatios[41]")
        #expect(zeroRatio?.message == "must be a number > 0, not 0.0")
        let negativeZeroRatio = error(at: 42, "-0.0", column: "aspectRatios")
        #expect(negativeZeroRatio?.message == "must be a number > 0, not -0.0")
        let outOfRange = error(at: 43, "1e400")
        #expect(outOfRange?.code == .invalidRequest)
        #expect(outOfRange?.path == "sections[0].heights[43]")
        #expect(error(at: 44, "\"7\"")?.path == "sections[0].heights[44]")
        #expect(error(at: 45, "true")?.message == "must be a number, not a boolean")
        for bad in ["012", "1.", "-", "1.e5", "1e", "--1", ".5", "1,"] {
            let syntax = error(at: 46, bad)
            #expect(syntax?.code == .invalidJSON, "\(bad) → \(String(describing: syntax))")
            #expect(syntax?.path == nil)
        }
    }

    @Test func syntaxErrorsNameTheirByte() throws {
        // A leading zero in a long column: the general path reports the byte where the number starts.
        var texts = Array(repeating: "20.5", count: 100)
        texts[50] = "012"
        let body = layoutBody(sections: #"[{"heights":[\#(texts.joined(separator: ","))]}]"#)
        let before = try #require(body.range(of: ",012,")).lowerBound
        let offset = body.utf8.distance(from: body.utf8.startIndex, to: before) + 1
        #expect(decodingError(body)?.message.hasSuffix("at byte \(offset)") == true, "\(String(describing: decodingError(body)))")
    }
}

@Suite struct SizeRuleTests {
    @Test(arguments: [SizeRule.nonNegative, .positive])
    func theLowestAcceptedValueAgreesWithTheRule(rule: SizeRule) {
        let values: [Double] = [-1, -.leastNonzeroMagnitude, -0.0, 0, .leastNonzeroMagnitude, .leastNormalMagnitude, 1, .infinity, -.infinity]
        for value in values {
            #expect((value >= rule.lowestAccepted) == rule.accepts(value), "\(value)")
        }
    }
}

@Suite struct ColumnBufferTests {
    @Test(arguments: [16, 512])
    func keepsEveryElementInOrderAcrossChunks(chunkCapacity: Int) {
        var buffer = ColumnBuffer<Double>(chunkCapacity: chunkCapacity)
        #expect(buffer.count == 0)
        for value in 0..<1500 { buffer.append(Double(value)) }
        buffer.append(repeating: -1, count: 40)
        #expect(buffer.count == 1540)
        #expect(buffer.array() == (0..<1500).map(Double.init) + Array(repeating: -1, count: 40))
    }

    @Test func anEmptyBufferGivesAnEmptyArray() {
        #expect(ColumnBuffer<Bool>().array().isEmpty)
    }
}
