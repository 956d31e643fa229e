import LayoutEngine
import Testing

/// A picture's SVG read back: what it draws, in px.
struct DrawnPicture {
    static let kinds = ["cell", "header", "footer", "decoration"]

    let root: SVGNode

    init(_ svg: String) throws {
        root = try SVGDocument.parse(svg)
    }

    /// The grey rectangle standing for the extent.
    var canvas: Rect? {
        root.children(named: "rect").first { $0.attributes["class"] == "canvas" }.flatMap(Self.rect)
    }

    /// The outline of the query rect.
    var outline: [SVGNode] {
        root.descendants.filter { $0.name == "rect" && $0.attributes["class"] == "rect" }
    }

    /// The groups of element shapes, by kind.
    var groups: [String: SVGNode] {
        var groups: [String: SVGNode] = [:]
        for node in root.children(named: "g") {
            guard let kind = node.attributes["class"], Self.kinds.contains(kind) else { continue }
            #expect(groups[kind] == nil, "one group of \(kind)")
            groups[kind] = node
        }
        return groups
    }

    /// The shapes in the group of `kind` (every child must be a rect).
    func shapes(of kind: String) -> [Rect] {
        guard let group = groups[kind] else { return [] }
        #expect(group.children.allSatisfy { $0.name == "rect" }, "a \(kind) group holds only rects")
        return group.children.compactMap(Self.rect)
    }

    /// Every `<rect>` of the document, legend and canvas included.
    var rectCount: Int { root.descendants.filter { $0.name == "rect" }.count }

    /// The index labels: text and anchor.
    var labels: [(text: String, x: Double, y: Double)] {
        let groups = root.children(named: "g").filter { $0.attributes["class"] == "labels" }
        return groups.flatMap(\.children).compactMap { node in
            guard node.name == "text", let x = node.number("x"), let y = node.number("y") else { return nil }
            return (node.text, x, y)
        }
    }

    static func rect(_ node: SVGNode) -> Rect? {
        guard let x = node.number("x"), let y = node.number("y"),
              let width = node.number("width"), let height = node.number("height")
        else { return nil }
        return Rect(x: x, y: y, width: width, height: height)
    }
}

/// Coordinates are written to hundredths of a px.
let pixelTolerance = 0.005 + 1e-9

func isClose(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= pixelTolerance }

func isClose(_ a: Rect, _ b: Rect) -> Bool {
    isClose(a.x, b.x) && isClose(a.y, b.y) && isClose(a.width, b.width) && isClose(a.height, b.height)
}

/// `frame` (content coordinates) where a picture of `extent` at `scale` with its canvas at `canvas`
/// must draw it.
func drawn(_ frame: Rect, extent: Rect, scale: Double, canvas: Rect) -> Rect {
    Rect(
        x: canvas.x + (frame.x - extent.x) * scale, y: canvas.y + (frame.y - extent.y) * scale,
        width: frame.width * scale, height: frame.height * scale
    )
}

/// Whether `actual` holds each of `expected` once (within the rounding), in any order.
func sameShapes(_ actual: [Rect], _ expected: [Rect]) -> Bool {
    guard actual.count == expected.count else { return false }
    var remaining = actual
    for frame in expected {
        guard let index = remaining.firstIndex(where: { isClose($0, frame) }) else { return false }
        remaining.remove(at: index)
    }
    return true
}
