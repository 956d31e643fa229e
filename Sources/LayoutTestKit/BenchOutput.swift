#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON value as the benchmarks print it (one JSON object per line, docs/BENCHMARKS.md).
public enum BenchValue: Sendable {
    case int(Int)
    case number(Double)
    case string(String)
    case bool(Bool)
    case null
    case object(KeyValuePairs<String, BenchValue>)
    /// An object whose fields are only known at run time, in this order.
    case fields([(String, BenchValue)])

    /// A measured figure, kept to four significant digits so lines stay readable; nil or non-finite is `null`.
    public static func figure(_ value: Double?) -> BenchValue {
        guard let value, value.isFinite else { return .null }
        return .number(value.roundedToSignificantDigits(4))
    }

    /// A version as `major.minor.patch` (libzmq's, in the `environment` lines).
    public static func version(_ version: (major: Int, minor: Int, patch: Int)) -> BenchValue {
        .string("\(version.major).\(version.minor).\(version.patch)")
    }

    /// An optional integer; nil is `null`.
    public static func integer(_ value: Int?) -> BenchValue {
        value.map { .int($0) } ?? .null
    }

    public var encoded: String {
        switch self {
        case .int(let value): return String(value)
        case .number(let value): return value.isFinite ? String(describing: value) : "null"
        case .string(let value): return Self.quoted(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .object(let fields):
            return "{" + fields.map { "\(Self.quoted($0.key)):\($0.value.encoded)" }.joined(separator: ",") + "}"
        case .fields(let fields):
            return "{" + fields.map { "\(Self.quoted($0.0)):\($0.1.encoded)" }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension BenchValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

/// Prints one JSON object per line and flushes, so a long run can be followed (and piped) as it goes.
public func emit(_ fields: KeyValuePairs<String, BenchValue>) {
    print(BenchValue.object(fields).encoded)
    fflush(nil)
}

/// The same for fields whose keys are only known at run time, in this order.
public func emit(_ fields: [(String, BenchValue)]) {
    print(BenchValue.fields(fields).encoded)
    fflush(nil)
}

extension Double {
    /// Rounds to `digits` significant digits by scaling with an exact power of ten, so the shortest
    /// representation Swift prints is the rounded decimal itself (0.004123, not 0.0041229999).
    func roundedToSignificantDigits(_ digits: Int) -> Double {
        guard isFinite, self != 0 else { return self }
        let exponent = Int(decimalLogarithm(Swift.abs(self)).rounded(.down))
        let shift = digits - 1 - exponent
        // Powers of ten up to 10^22 are exact doubles; outside that range leave the value alone.
        guard Swift.abs(shift) <= 22 else { return self }
        let scale = powerOfTen(Double(Swift.abs(shift)))
        return shift >= 0 ? (self * scale).rounded() / scale : (self / scale).rounded() * scale
    }
}

// At file scope, where the C functions are found by name: inside `extension Double` the name resolves
// to static members that some dependencies add to `Double`.
private func decimalLogarithm(_ value: Double) -> Double { log10(value) }
private func powerOfTen(_ exponent: Double) -> Double { pow(10, exponent) }
