import LayoutEngine
import Testing
@testable import LayoutRender

@Suite("Pictures of layouts")
struct PictureTests {
    @Test("One shape per element, in its kind's group, at the frame times the scale", arguments: Fixtures.exampleJobs)
    func everyElementIsDrawnOnce(job: String) throws {
        let layout = try Fixtures.layout(at: Fixtures.example(job))
        let picture = try LayoutPicture(layout: layout)
        let drawing = try DrawnPicture(picture.svg())
        let canvas = try #require(drawing.canvas)

        // Without a rect the extent is the content, widened to every frame (seed 004's right column
        // reaches past the content width): 800 px wide, as tall as the content at that scale.
        let elements = Fixtures.elements(of: layout)
        let (minX, maxX) = horizontalExtent(of: elements, contentWidth: layout.contentSize.width)
        let scale = 800 / (maxX - minX)
        let extent = Rect(x: minX, y: 0, width: maxX - minX, height: layout.contentSize.height)
        #expect(isClose(canvas.width, 800))
        #expect(isClose(canvas.height, layout.contentSize.height * scale))

        var drawnCount = 0
        for kind in ElementKind.allCases {
            let expected = elements.filter { $0.kind == kind }.map { drawn($0.frame, extent: extent, scale: scale, canvas: canvas) }
            let shapes = drawing.shapes(of: kind.name)
            #expect(sameShapes(shapes, expected), "\(job): the \(kind.name) shapes are its elements' frames")
            drawnCount += shapes.count
        }
        #expect(drawnCount == layout.elementCount)
        #expect(Set(drawing.groups.keys).isSubset(of: DrawnPicture.kinds))
        #expect(drawing.outline.isEmpty, "no rect, no outline")
    }

    @Test("Each kind has its own colour")
    func kindsHaveDistinctColours() throws {
        // mosaic.json has headers, footers, cells and backgrounds.
        let drawing = try DrawnPicture(LayoutPicture(layout: Fixtures.layout(at: Fixtures.example("mosaic.json"))).svg())
        let groups = drawing.groups
        #expect(groups.count == 4)
        let fills = groups.values.compactMap { $0.attributes["fill"] }
        let strokes = groups.values.compactMap { $0.attributes["stroke"] }
        #expect(fills.count == 4 && Set(fills).count == 4)
        #expect(strokes.count == 4 && Set(strokes).count == 4)
    }

    @Test("Decorations are drawn first, behind the other kinds")
    func decorationsComeFirst() throws {
        let drawing = try DrawnPicture(LayoutPicture(layout: Fixtures.layout(at: Fixtures.example("list.json"))).svg())
        let order = drawing.root.children(named: "g").compactMap { $0.attributes["class"] }.filter(DrawnPicture.kinds.contains)
        #expect(order.first == "decoration")
        #expect(order.count > 1)
    }

    @Test("A rect draws what a rect query answers, outlined, over the band it covers", arguments: Fixtures.exampleJobs)
    func rectIsOutlined(job: String) throws {
        let layout = try Fixtures.layout(at: Fixtures.example(job))
        let width = layout.contentSize.width
        let rect = Rect(x: width / 4, y: layout.contentSize.height / 3, width: width / 2, height: 300)
        let picture = try LayoutPicture(layout: layout, rect: rect)
        let drawing = try DrawnPicture(picture.svg())
        let canvas = try #require(drawing.canvas)

        let elements = layout.elementsByScanning(in: rect)
        var minY = rect.minY
        var maxY = rect.maxY
        for element in elements {
            minY = min(minY, element.frame.minY)
            maxY = max(maxY, element.frame.maxY)
        }
        let (minX, maxX) = horizontalExtent(of: elements, contentWidth: width, rect: rect)
        let extent = Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
        let scale = 800 / extent.width
        #expect(isClose(canvas.height, extent.height * scale))
        for kind in ElementKind.allCases {
            let expected = elements.filter { $0.kind == kind }.map { drawn($0.frame, extent: extent, scale: scale, canvas: canvas) }
            #expect(sameShapes(drawing.shapes(of: kind.name), expected), "\(job): the \(kind.name) shapes in the rect")
        }
        let outline = try #require(drawing.outline.first)
        #expect(drawing.outline.count == 1)
        #expect(outline.attributes["fill"] == "none")
        let outlined = try #require(DrawnPicture.rect(outline))
        #expect(isClose(outlined, drawn(rect, extent: extent, scale: scale, canvas: canvas)))
    }

    @Test("A rect beyond the content widens the extent to hold it")
    func rectBeyondTheContent() throws {
        let layout = try Fixtures.layout(at: Fixtures.example("list.json"))
        let rect = Rect(x: -50, y: 10, width: layout.contentSize.width + 100, height: 40)
        let drawing = try DrawnPicture(LayoutPicture(layout: layout, rect: rect).svg())
        let canvas = try #require(drawing.canvas)
        let outline = try #require(drawing.outline.first.flatMap(DrawnPicture.rect))
        // The rect spans the whole width of the extent, which is 800 px.
        #expect(isClose(outline.x, canvas.x) && isClose(outline.width, 800))
    }

    @Test("Labels only where they fit, at the centre of their element")
    func labelsWhereTheyFit() throws {
        let layout = try Fixtures.layout(at: Fixtures.own("labels.json"))
        let drawing = try DrawnPicture(LayoutPicture(layout: layout).svg())
        let canvas = try #require(drawing.canvas)
        let scale = 800 / layout.contentSize.width
        let extent = Rect(x: 0, y: 0, width: layout.contentSize.width, height: layout.contentSize.height)

        // 10 px monospace, 6 px a character, 2 px free on each side (one section: the item index).
        var expected: [String: Rect] = [:]
        for element in Fixtures.elements(of: layout) {
            let text = "\(element.item)"
            let frame = drawn(element.frame, extent: extent, scale: scale, canvas: canvas)
            if frame.width >= Double(text.count) * 6 + 4, frame.height >= 14 { expected[text] = frame }
        }
        // The fixture holds elements on both sides of both bounds.
        #expect(expected.keys.contains("0") && expected.keys.contains("10"))
        #expect(!expected.keys.contains("1") && !expected.keys.contains("2") && !expected.keys.contains("11"))

        let labels = drawing.labels
        #expect(Set(labels.map(\.text)) == Set(expected.keys))
        #expect(labels.count == expected.count)
        for label in labels {
            let frame = try #require(expected[label.text])
            #expect(isClose(label.x, frame.x + frame.width / 2), "label \(label.text) is centred")
            #expect(isClose(label.y, frame.y + frame.height / 2 + 3.5), "label \(label.text) sits on the centre")
        }
    }

    @Test("Labels name the section when the picture shows more than section 0")
    func labelsWithSections() throws {
        let layout = try Fixtures.layout(at: Fixtures.example("mosaic.json"))
        let labels = try DrawnPicture(LayoutPicture(layout: layout).svg()).labels.map(\.text)
        #expect(labels.contains("0.0") && labels.contains("2.3"))
        #expect(labels.contains("header 1") && labels.contains("footer 1"))
        #expect(!labels.contains { $0.hasPrefix("decoration") })

        let unlabelled = try DrawnPicture(LayoutPicture(layout: layout).svg(style: PictureStyle(showsLabels: false)))
        #expect(unlabelled.labels.isEmpty)
    }

    @Test("A layout over the limit needs a rect; a rect over the limit is refused too")
    func hugeLayouts() throws {
        let layout = try Fixtures.layout(at: Fixtures.own("huge-list.json"))
        #expect(layout.elementCount == LayoutPicture.defaultLimit + 1)
        #expect(throws: RenderError.tooManyElements(count: 5_001, limit: 5_000, inRect: false)) {
            try LayoutPicture(layout: layout)
        }
        let screen = Rect(x: 0, y: 0, width: 375, height: 812)
        let picture = try LayoutPicture(layout: layout, rect: screen)
        #expect(picture.elements == layout.elementsByScanning(in: screen))
        let drawing = try DrawnPicture(picture.svg())
        #expect(drawing.shapes(of: "cell").count == picture.elements.count)

        let everything = Rect(x: 0, y: 0, width: 375, height: layout.contentSize.height)
        #expect(throws: RenderError.tooManyElements(count: 5_001, limit: 5_000, inRect: true)) {
            try LayoutPicture(layout: layout, rect: everything)
        }
        #expect(try LayoutPicture(layout: layout, limit: 5_001).elements.count == 5_001)
        #expect(throws: RenderError.tooManyElements(count: 19, limit: 18, inRect: true)) {
            try LayoutPicture(layout: layout, rect: screen, limit: 18)
        }
    }

    @Test("A picture of given elements without a content size spans their frames")
    func elementsWithoutContentSize() throws {
        let elements = [
            LayoutElement(kind: .header, section: 0, item: 0, frame: Rect(x: 0, y: 0, width: 200, height: 20)),
            LayoutElement(kind: .cell, section: 0, item: 0, frame: Rect(x: 10, y: 30, width: 50, height: 50)),
            LayoutElement(kind: .footer, section: 0, item: 0, frame: Rect(x: 0, y: 90, width: 200, height: 10)),
        ]
        let picture = try LayoutPicture(elements: elements)
        #expect(picture.extent == Rect(x: 0, y: 0, width: 200, height: 100))
        let drawing = try DrawnPicture(picture.svg(style: PictureStyle(width: 400)))
        let canvas = try #require(drawing.canvas)
        #expect(isClose(canvas.width, 400) && isClose(canvas.height, 200))
        #expect(sameShapes(drawing.shapes(of: "cell"), [Rect(x: canvas.x + 20, y: canvas.y + 60, width: 100, height: 100)]))
        #expect(throws: RenderError.tooManyElements(count: 3, limit: 2, inRect: false)) {
            try LayoutPicture(elements: elements, limit: 2)
        }
    }

    @Test("An empty layout is a valid, empty picture")
    func emptyPicture() throws {
        let drawing = try DrawnPicture(LayoutPicture(elements: []).svg())
        #expect(drawing.groups.isEmpty)
        #expect(drawing.canvas?.height == 0)
    }

    @Test("Legend and title: a swatch per kind drawn and for the rect, the title escaped")
    func legend() throws {
        let layout = try Fixtures.layout(at: Fixtures.example("mosaic.json"))
        var picture = try LayoutPicture(layout: layout, rect: Rect(x: 0, y: 0, width: 375, height: 100))
        picture.title = "a <b> & \"c\""
        let drawing = try DrawnPicture(picture.svg())
        let legend = try #require(drawing.root.children(named: "g").first { $0.attributes["class"] == "legend" })
        let swatches = legend.children(named: "rect")
        let kinds = Set(picture.elements.map(\.kind))
        #expect(swatches.count == kinds.count + 1)
        let texts = legend.children(named: "text").map(\.text)
        #expect(texts.first == "a <b> & \"c\"")
        #expect(texts.contains("rect 0,0,375,100"))
        #expect(drawing.root.children(named: "title").first?.text == "a <b> & \"c\"")

        // A narrow picture grows to hold its legend's text (0.6 em a glyph at 12 px for the title).
        let narrow = try DrawnPicture(picture.svg(style: PictureStyle(width: 40)))
        #expect(narrow.canvas.map { isClose($0.width, 40) } == true)
        #expect((narrow.root.number("width") ?? 0) >= Double(picture.title?.count ?? 0) * 7.2)

        let bare = try DrawnPicture(picture.svg(style: PictureStyle(showsLegend: false)))
        #expect(!bare.root.children(named: "g").contains { $0.attributes["class"] == "legend" })
        #expect(bare.canvas?.y == 8)
        #expect(bare.root.number("width") == 816)
    }
}

/// The x range a picture spans: the content width, widened to every drawn frame and the rect.
private func horizontalExtent(of elements: [LayoutElement], contentWidth: Double, rect: Rect? = nil) -> (minX: Double, maxX: Double) {
    var minX = min(0, rect?.minX ?? 0)
    var maxX = max(contentWidth, rect?.maxX ?? contentWidth)
    for element in elements {
        minX = min(minX, element.frame.minX)
        maxX = max(maxX, element.frame.maxX)
    }
    return (minX, maxX)
}
