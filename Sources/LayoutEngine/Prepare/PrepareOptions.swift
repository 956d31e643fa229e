/// Limits an input must respect.
public struct InputLimits: Hashable, Sendable {
    /// Items over all sections.
    public var maxItems: Int
    public var maxSections: Int

    public init(maxItems: Int = 10_000_000, maxSections: Int = 100_000) {
        self.maxItems = maxItems
        self.maxSections = maxSections
    }
}

/// How `prepare` runs.
public struct PrepareOptions: Hashable, Sendable {
    public var limits: InputLimits
    /// How large sections are split; `Segments.serial` forces the serial path.
    public var segments: Segments
    /// Below this many items in all, everything runs serially: thread hand-off would cost more than it saves.
    public var parallelThreshold: Int

    public init(limits: InputLimits = InputLimits(), segments: Segments = Segments(), parallelThreshold: Int = 100_000) {
        self.limits = limits
        self.segments = segments
        self.parallelThreshold = parallelThreshold
    }

    /// Everything on the calling thread.
    public static let serial = PrepareOptions(segments: .serial)
}
