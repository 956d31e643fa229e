import LayoutEngine

/// What a picture of a layout shows: some of its elements, the area of content coordinates they are drawn
/// in (`extent`), and the rect to outline, if any. `svg(style:)` draws it.
public struct LayoutPicture: Sendable {
    /// The most elements a picture draws unless told otherwise: a few thousand shapes is what an SVG
    /// viewer still shows at once, and what a reader can still tell apart.
    public static let defaultLimit = 5_000

    /// The elements drawn, in layout order.
    public let elements: [LayoutElement]
    /// The part of content coordinates the picture covers (see `init(elements:contentSize:rect:limit:)`).
    public let extent: Rect
    /// The rect outlined, if any.
    public let rect: Rect?
    /// A line of text drawn above the legend (for example the job's name and counts).
    public var title: String?

    /// A picture of exactly `elements`, which the caller chose (for example the answer of a rect query).
    ///
    /// The extent spans x from `min(0, every element's minX, rect.minX)` to `max(contentSize.width,
    /// every element's maxX, rect.maxX)`. Vertically it spans, without a rect, from 0 to
    /// `max(contentSize.height, every element's maxY)`; with a rect, only the rect and the elements
    /// (from the least minY to the greatest maxY), so a rect deep in a long layout does not draw the
    /// whole height. `contentSize` is optional because a query's answer does not carry it.
    ///
    /// - Throws: `tooManyElements` when there are more than `limit` elements.
    public init(
        elements: [LayoutElement], contentSize: Size? = nil, rect: Rect? = nil, limit: Int = defaultLimit
    ) throws(RenderError) {
        guard elements.count <= limit else {
            throw .tooManyElements(count: elements.count, limit: limit, inRect: rect != nil)
        }
        self.elements = elements
        self.rect = rect
        self.extent = Self.extent(of: elements, contentSize: contentSize, rect: rect)
    }

    /// A picture of a prepared layout: every element (zero-size ones included) without a rect, else the
    /// elements a rect query of `rect` answers, with `rect` outlined. The extent is as in
    /// `init(elements:contentSize:rect:limit:)` with the layout's content size.
    ///
    /// - Throws: `tooManyElements` when the layout (without a rect) or the rect holds more than `limit`
    ///   elements; a layout too large is refused before any element is collected.
    public init(layout: PreparedLayout, rect: Rect? = nil, limit: Int = defaultLimit) throws(RenderError) {
        var elements: [LayoutElement] = []
        if let rect {
            var count = 0
            layout.forEachElement(in: rect) { element in
                count += 1
                if count <= limit { elements.append(element) }
            }
            guard count <= limit else { throw .tooManyElements(count: count, limit: limit, inRect: true) }
        } else {
            guard layout.elementCount <= limit else {
                throw .tooManyElements(count: layout.elementCount, limit: limit, inRect: false)
            }
            elements.reserveCapacity(layout.elementCount)
            layout.forEachElement { elements.append($0) }
        }
        try self.init(elements: elements, contentSize: layout.contentSize, rect: rect, limit: limit)
    }

    private static func extent(of elements: [LayoutElement], contentSize: Size?, rect: Rect?) -> Rect {
        var minX = 0.0
        var maxX = contentSize?.width ?? 0
        var minY = rect?.minY ?? 0
        var maxY = rect?.maxY ?? (contentSize?.height ?? 0)
        if let rect {
            minX = min(minX, rect.minX)
            maxX = max(maxX, rect.maxX)
        }
        for element in elements {
            minX = min(minX, element.frame.minX)
            maxX = max(maxX, element.frame.maxX)
            minY = min(minY, element.frame.minY)
            maxY = max(maxY, element.frame.maxY)
        }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
