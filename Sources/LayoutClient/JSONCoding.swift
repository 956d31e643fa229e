import Foundation

/// `JSONSerialization` behind typed throws, and the number and boolean readings that behave the same on
/// Darwin and Linux (where every JSON number and boolean arrives as an `NSNumber`).
enum JSONCoding {
    /// `value` as JSON text.
    static func bytes(of value: Any, pretty: Bool = false) throws(ClientError) -> [UInt8] {
        guard JSONSerialization.isValidJSONObject(value) else {
            throw .invalidInput("not representable as JSON (only objects, arrays, strings, finite numbers, booleans and null are)")
        }
        let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys] : []
        do {
            return Array(try JSONSerialization.data(withJSONObject: value, options: options))
        } catch {
            throw .invalidInput("cannot write JSON: \(error.localizedDescription)")
        }
    }

    /// Any JSON value, or `nil` if `bytes` is not JSON.
    static func value(from bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// The object `bytes` holds, or `nil` if it holds something else.
    static func object(from bytes: [UInt8]) -> [String: Any]? {
        value(from: bytes) as? [String: Any]
    }

    /// The start of `bytes` as text, for error messages.
    static func preview(_ bytes: [UInt8], limit: Int = 80) -> String {
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return bytes.count > limit ? text + "…" : text
    }

    static func isBoolean(_ value: Any?) -> Bool {
        guard let number = value as? NSNumber else { return value is Bool }
        // `as? Bool` also accepts the numbers 0 and 1; JSON booleans alone have the ObjC type code "c"
        // (CFBoolean on Darwin, __NSCFBoolean on Linux), which JSON numbers never get.
        return String(cString: number.objCType) == "c"
    }

    static func bool(_ value: Any?) -> Bool? {
        guard isBoolean(value) else { return nil }
        return (value as? NSNumber)?.boolValue ?? (value as? Bool)
    }

    static func double(_ value: Any?) -> Double? {
        guard !isBoolean(value) else { return nil }
        if let number = value as? NSNumber { return number.doubleValue }
        return value as? Double
    }

    static func int(_ value: Any?) -> Int? {
        guard let double = double(value), double.rounded() == double, abs(double) < 0x1p62 else { return nil }
        return Int(double)
    }
}
