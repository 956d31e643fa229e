/// Why a picture cannot be drawn.
public enum RenderError: Error, Hashable, Sendable {
    /// The picture would draw `count` elements, more than its `limit`. `inRect` tells whether they are
    /// the elements of a rect or of the whole layout.
    case tooManyElements(count: Int, limit: Int, inRect: Bool)
}

extension RenderError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooManyElements(let count, let limit, let inRect):
            let what = inRect ? "the rect holds" : "the layout has"
            return "\(what) \(count) elements, more than the \(limit) a picture draws"
        }
    }
}
