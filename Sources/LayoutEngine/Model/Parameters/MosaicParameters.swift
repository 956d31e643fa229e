/// Apple's MosaicLayout (LAYOUTS.md `mosaic`).
public struct MosaicParameters: Hashable, Sendable {
    public var segmentHeight: Double = 200
    public var spacing: Double = 1
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public init() {}
}
