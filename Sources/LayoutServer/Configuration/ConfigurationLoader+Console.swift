import Configuration

extension ConfigurationLoader {
    /// The `console.*` keys (docs/OPERATIONS.md, The web console).
    static func readConsole(_ config: ConfigReader, into c: inout ServerConfiguration) throws {
        var console = c.console
        console.isEnabled = config.bool(forKey: "console.enabled", default: console.isEnabled)
        console.allowsChanges = config.bool(forKey: "console.allowChanges", default: console.allowsChanges)
        let token = config.string(forKey: "console.token", default: "")
        guard token.isEmpty || (16...256).contains(token.utf8.count), !token.contains(where: { $0 == " " || $0.isNewline }) else {
            throw ConfigurationError(key: "console.token", message: "must be 16 to 256 characters without spaces, or empty")
        }
        console.token = token.isEmpty ? nil : token
        // Unset, it is the smaller of its default and the front's own cap.
        let maxItems = config.int(forKey: "console.maxItems", default: max(1, min(console.maxItems, c.maxItems)))
        console.maxItems = try ranged(maxItems, 1...max(1, c.maxItems), "console.maxItems")
        console.maxBodyBytes = try ranged(config.int(forKey: "console.maxBodyBytes", default: console.maxBodyBytes), 1024...(1 << 30), "console.maxBodyBytes")
        console.timeoutMillis = try ranged(config.int(forKey: "console.timeoutMillis", default: console.timeoutMillis), 100...600_000, "console.timeoutMillis")
        console.maxStreams = try ranged(config.int(forKey: "console.maxStreams", default: console.maxStreams), 0...1024, "console.maxStreams")
        c.console = console
    }

    private static func ranged(_ value: Int, _ range: ClosedRange<Int>, _ key: String) throws -> Int {
        guard range.contains(value) else {
            throw ConfigurationError(key: key, message: "must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        return value
    }
}
