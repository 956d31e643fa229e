import Foundation
import LayoutClient

/// How numbers, sizes and durations read in layoutctl's summaries.
enum Format {
    /// Integral values without a fraction, others with at most three decimals: `375`, `187.5`, `0.333`.
    static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
        guard value.isFinite else { return String(value) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A number member of a JSON object, `?` when missing.
    static func number(_ object: AnyJSONObject?, _ key: String) -> String {
        object?.double(key).map(number) ?? "?"
    }

    /// `375×20105`, `?` when missing.
    static func size(_ size: ContentSize?) -> String {
        guard let size else { return "?" }
        return "\(number(size.width))×\(number(size.height))"
    }

    /// `512 B`, `1.5 KiB`, `12.0 MiB`.
    static func bytes(_ count: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = count
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(number(value)) \(units[0])" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// `42s`, `3m 05s`, `2h 03m`, `4d 01h`.
    static func uptime(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        let whole = Int(seconds)
        let (minutes, hours, days) = (whole / 60, whole / 3_600, whole / 86_400)
        if days > 0 { return String(format: "%dd %02dh", days, hours % 24) }
        if hours > 0 { return String(format: "%dh %02dm", hours, minutes % 60) }
        if minutes > 0 { return String(format: "%dm %02ds", minutes, whole % 60) }
        return "\(number((seconds * 10).rounded() / 10))s"
    }

    /// `0.4 ms`, `12 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        return value < 10 ? String(format: "%.1f ms", value) : "\(Int(value.rounded())) ms"
    }
}
