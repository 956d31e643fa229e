import LayoutEngine

/// Micro benchmarks of the wire codec, for the bench executable: decoding a large `layout` job in both
/// item forms, and encoding its attributes in both formats.
public enum WireBenchmarks {
    /// Runs every benchmark and returns one JSON object per line (a `layout` job of `items` list items;
    /// encoding writes every element of its prepared layout as a whole reply), e.g.
    /// `{"bench":"decode","format":"objects","items":1000000,"bytes":…,"seconds":…,"megabytesPerSecond":…}`.
    /// `seconds` is the best of `repetitions` runs.
    public static func run(items: Int = 1_000_000, repetitions: Int = 3) -> [String] {
        var lines: [String] = []
        let objectsBody = layoutJob(items: items, columnar: false)
        let columnsBody = layoutJob(items: items, columnar: true)
        lines.append(decodeBenchmark(objectsBody, format: "objects", items: items, repetitions: repetitions))
        lines.append(decodeBenchmark(columnsBody, format: "columns", items: items, repetitions: repetitions))

        let prepared: PreparedLayout
        do {
            guard case .layout(let request) = try RequestDecoder().decode(columnsBody).operation else {
                return lines + [line(bench: "encode", format: "-", items: items, error: "the job did not decode as layout")]
            }
            prepared = try PreparedLayout.prepare(request.input)
        } catch {
            return lines + [line(bench: "encode", format: "-", items: items, error: "\(error)")]
        }
        for format in AttributesFormat.allCases {
            lines.append(encodeBenchmark(prepared, format: format, repetitions: repetitions))
        }
        return lines
    }

    /// A `layout` request for a list of `items` items whose heights step by halves (integers and
    /// one-decimal numbers, as real feeds send).
    static func layoutJob(items: Int, columnar: Bool) -> [UInt8] {
        var writer = JSONWriter(capacity: items * (columnar ? 7 : 18) + 256)
        writer.write(raw: "{\"v\":1,\"id\":1,\"op\":\"layout\",\"bounds\":{\"width\":1024,\"height\":768},")
        writer.write(raw: "\"spec\":{\"type\":\"list\",\"spacing\":4},\"return\":\"none\",\"sections\":[{")
        writer.write(raw: columnar ? "\"heights\":[" : "\"items\":[")
        for i in 0..<items {
            if i > 0 { writer.write(byte: UInt8(ascii: ",")) }
            if !columnar { writer.write(raw: "{\"height\":") }
            writer.write(20 + Double(i % 400) * 0.5)
            if !columnar { writer.write(byte: UInt8(ascii: "}")) }
        }
        writer.write(raw: "]}]}")
        return writer.finish()
    }

    private static func decodeBenchmark(_ body: [UInt8], format: String, items: Int, repetitions: Int) -> String {
        let decoder = RequestDecoder()
        var failure: WireError?
        let seconds = best(of: repetitions) {
            do throws(WireError) {
                _ = try decoder.decode(body)
            } catch {
                failure = error
            }
        }
        if let failure { return line(bench: "decode", format: format, items: items, error: failure.description) }
        return line(bench: "decode", format: format, items: items, bytes: body.count, seconds: seconds)
    }

    private static func encodeBenchmark(_ layout: PreparedLayout, format: AttributesFormat, repetitions: Int) -> String {
        let result = LayoutResult(layout: layout, selection: .all, format: format)
        var bytes = 0
        // The reply as the server sends it: left in its writer, no copy into an array.
        let seconds = best(of: repetitions) {
            bytes = ReplyEncoder.successBody(id: .number("1"), result: result).count
        }
        return line(bench: "encode", format: format.rawValue, items: layout.itemCount, bytes: bytes, seconds: seconds)
    }

    private static func best(of repetitions: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        var best = Double.infinity
        for _ in 0..<Swift.max(1, repetitions) {
            let duration = clock.measure(body)
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
            best = Swift.min(best, seconds)
        }
        return best
    }

    private static func line(bench: String, format: String, items: Int, bytes: Int, seconds: Double) -> String {
        var writer = JSONWriter(capacity: 256)
        writer.write(raw: "{\"bench\":")
        writer.write(bench)
        writer.write(raw: ",\"format\":")
        writer.write(format)
        writer.write(raw: ",\"items\":")
        writer.write(items)
        writer.write(raw: ",\"bytes\":")
        writer.write(bytes)
        writer.write(raw: ",\"seconds\":")
        writer.write((seconds * 1e6).rounded() / 1e6)
        writer.write(raw: ",\"megabytesPerSecond\":")
        writer.write((Double(bytes) / seconds / 1e6).rounded())
        writer.write(byte: UInt8(ascii: "}"))
        return String(decoding: writer.finish(), as: UTF8.self)
    }

    private static func line(bench: String, format: String, items: Int, error: String) -> String {
        var writer = JSONWriter(capacity: 256)
        writer.write(raw: "{\"bench\":")
        writer.write(bench)
        writer.write(raw: ",\"format\":")
        writer.write(format)
        writer.write(raw: ",\"items\":")
        writer.write(items)
        writer.write(raw: ",\"error\":")
        writer.write(error)
        writer.write(byte: UInt8(ascii: "}"))
        return String(decoding: writer.finish(), as: UTF8.self)
    }
}
