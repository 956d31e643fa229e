/// The text of SVG attribute values and character data.
enum SVGText {
    /// `value` rounded to hundredths of a px (half away from zero), without trailing zeros: `12`,
    /// `12.5`, `12.25`. Values beyond ±10^12 px are clamped, and a non-finite value is written 0.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let clamped = min(max(value, -1e12), 1e12)
        let hundredths = Int((clamped * 100).rounded())
        let magnitude = hundredths.magnitude
        let whole = magnitude / 100
        let fraction = magnitude % 100
        let sign = hundredths < 0 ? "-" : ""
        if fraction == 0 { return "\(sign)\(whole)" }
        if fraction % 10 == 0 { return "\(sign)\(whole).\(fraction / 10)" }
        return "\(sign)\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// `text` with the characters XML reserves escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
