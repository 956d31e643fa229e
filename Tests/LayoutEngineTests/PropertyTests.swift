import Testing
@testable import LayoutEngine

/// Properties every layout must have, checked over seeded random inputs (Support/RandomInputs.swift).
@Suite struct PropertyTests {
    /// Layouts whose frames are the same for every split into segments (no per-segment prefix sums).
    static let segmentationIndependentKinds: [LayoutKind] = [.columnFlow, .mosaic, .waterfall, .justified]
    /// Layouts whose cells never overlap.
    static let nonOverlappingKinds: [LayoutKind] = [.mosaic, .waterfall, .list, .columns, .justified]
    /// Layouts whose cells may reach past the content's left or right edge: flickr's widows keep the
    /// last row's height, which can make them wider than the row (LAYOUTS.md `justified`).
    static let horizontallyUnboundedKinds: [LayoutKind] = [.justified]

    private static let parallelBySeven = PrepareOptions(segments: Segments(segmentSize: 7, isParallel: true), parallelThreshold: 0)
    private static let serialBySeven = PrepareOptions(segments: Segments(segmentSize: 7, isParallel: false))

    @Test("a rect query returns exactly the brute-force answer", arguments: LayoutKind.allCases)
    func rectQueryMatchesScan(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0x5EED_0000 + seed(of: kind))
        for _ in 0..<10 {
            let layout = try PreparedLayout.prepare(RandomInputs.input(kind, using: &random))
            let elements = allElements(of: layout)
            for _ in 0..<1_000 {
                let rect = Self.randomRect(near: elements, in: layout.contentSize, using: &random)
                let found = layout.elements(in: rect)
                let expected = layout.elementsByScanning(in: rect)
                if found != expected {
                    Issue.record("\(kind): elements(in: \(rect)) returned \(found.count) elements, the scan \(expected.count)")
                    return
                }
            }
        }
    }

    @Test("parallel prepare gives the serial frames bit for bit", arguments: LayoutKind.allCases)
    func parallelMatchesSerial(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0xB17_0000 + seed(of: kind))
        for _ in 0..<10 {
            let input = RandomInputs.input(kind, maxItemsPerSection: 200, using: &random)
            let parallel = try PreparedLayout.prepare(input, options: Self.parallelBySeven)
            let serial = try PreparedLayout.prepare(input, options: Self.serialBySeven)
            #expect(firstDifference(parallel, serial) == nil, "\(kind): parallel vs serial, segments of 7")
            if Self.segmentationIndependentKinds.contains(kind) {
                let whole = try PreparedLayout.prepare(input, options: PrepareOptions(segments: Segments(segmentSize: 1 << 20)))
                #expect(firstDifference(parallel, whole) == nil, "\(kind): segments of 7 vs one segment")
            }
        }
    }

    @Test("cells never overlap", arguments: nonOverlappingKinds)
    func cellsNeverOverlap(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0x0FE_0000 + seed(of: kind))
        for _ in 0..<10 {
            let layout = try PreparedLayout.prepare(RandomInputs.input(kind, using: &random))
            var cells: [LayoutElement] = []
            layout.forEachElement { if $0.kind == .cell { cells.append($0) } }
            cells.sort { $0.frame.minY < $1.frame.minY }
            // Sweep by minY: only cells starting above another's bottom can overlap it.
            for (i, a) in cells.enumerated() {
                for b in cells[(i + 1)...] {
                    if b.frame.minY >= a.frame.maxY { break }
                    if overlapsBeyondRounding(a.frame, b.frame) {
                        Issue.record("\(kind): cell \(a.section).\(a.item) \(a.frame) overlaps cell \(b.section).\(b.item) \(b.frame)")
                        return
                    }
                }
            }
        }
    }

    @Test("every element lies within (0, 0, contentSize)", arguments: LayoutKind.allCases)
    func elementsLieWithinContent(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0x1_0000 + seed(of: kind))
        for _ in 0..<20 {
            let layout = try PreparedLayout.prepare(RandomInputs.input(kind, using: &random))
            let size = layout.contentSize
            var outside: LayoutElement?
            layout.forEachElement { element in
                let f = element.frame
                let insideHorizontally = Self.horizontallyUnboundedKinds.contains(kind)
                    || (f.minX >= -tolerance && f.maxX <= size.width + tolerance)
                let inside = insideHorizontally && f.minY >= -tolerance && f.maxY <= size.height + tolerance
                    && f.width >= 0 && f.height >= 0
                if !inside, outside == nil { outside = element }
            }
            if let outside {
                Issue.record("\(kind): \(outside) is outside the content \(size)")
                return
            }
        }
    }

    // MARK: Helpers

    /// Frames are sums of doubles; a layout's own rounding may leave a neighbour an ulp too far.
    private let tolerance = 1e-6

    private func seed(of kind: LayoutKind) -> UInt64 {
        UInt64(LayoutKind.allCases.firstIndex(of: kind) ?? 0)
    }

    private func overlapsBeyondRounding(_ a: Rect, _ b: Rect) -> Bool {
        let width = Swift.min(a.maxX, b.maxX) - Swift.max(a.minX, b.minX)
        let height = Swift.min(a.maxY, b.maxY) - Swift.max(a.minY, b.minY)
        return width > tolerance && height > tolerance
    }

    private func allElements(of layout: PreparedLayout) -> [LayoutElement] {
        var elements: [LayoutElement] = []
        layout.forEachElement { elements.append($0) }
        return elements
    }

    /// Where two layouts' bit patterns first differ (an index into `bitPatterns(of:)`), nil if nowhere.
    private func firstDifference(_ a: PreparedLayout, _ b: PreparedLayout) -> Int? {
        let (x, y) = (bitPatterns(of: a), bitPatterns(of: b))
        let common = Swift.min(x.count, y.count)
        return (0..<common).first { x[$0] != y[$0] } ?? (x.count == y.count ? nil : common)
    }

    /// Every number a prepared layout holds, as bits (so -0 and 0, or two NaNs, are told apart).
    private func bitPatterns(of layout: PreparedLayout) -> [UInt64] {
        var bits: [UInt64] = [layout.contentSize.width.bitPattern, layout.contentSize.height.bitPattern]
        for frames in layout.sectionFrames {
            bits.append(frames.height.bitPattern)
            for rect in [frames.header, frames.footer] {
                if let rect {
                    bits += [1, rect.x.bitPattern, rect.y.bitPattern, rect.width.bitPattern, rect.height.bitPattern]
                } else {
                    bits.append(0)
                }
            }
            let cells = frames.cells
            bits.append(UInt64(cells.count))
            for column in [cells.xs, cells.ys, cells.widths, cells.heights] {
                bits += column.map(\.bitPattern)
            }
        }
        return bits
    }

    /// Rects of every shape a client may ask: anywhere around the content, flush with an element's edges
    /// (touching does not count as overlap), exactly an element's frame, zero-width or zero-height, thin
    /// bands and the whole content.
    static func randomRect(near elements: [LayoutElement], in size: Size, using random: inout SeededRandom) -> Rect {
        let width = size.width
        let height = Swift.max(size.height, 1)
        func anywhere() -> Rect {
            Rect(
                x: random.unit() * (width + 40) - 20,
                y: random.unit() * (height + 40) - 20,
                width: random.unit() * width / 2,
                height: random.unit() * height / 4
            )
        }
        guard !elements.isEmpty else { return anywhere() }
        let frame = random.element(of: elements).frame
        let w = random.unit() * 100
        let h = random.unit() * 100
        switch random.int(in: 0...9) {
        case 0, 1, 2: return anywhere()
        case 3: return frame
        case 4: return Rect(x: frame.minX, y: frame.maxY, width: w, height: h)
        case 5: return Rect(x: frame.maxX, y: frame.minY, width: w, height: h)
        case 6: return Rect(x: frame.minX - w, y: frame.minY - h, width: w, height: h)
        case 7:
            // Zero-size: a vertical or horizontal line, or a point, inside or on the edge of the frame.
            let x = random.chance(0.5) ? frame.minX : frame.minX + random.unit() * frame.width
            let y = random.chance(0.5) ? frame.maxY : frame.minY + random.unit() * frame.height
            switch random.int(in: 0...2) {
            case 0: return Rect(x: x, y: y, width: 0, height: h)
            case 1: return Rect(x: x, y: y, width: w, height: 0)
            default: return Rect(x: x, y: y, width: 0, height: 0)
            }
        case 8: return Rect(x: 0, y: frame.minY, width: width, height: random.unit() * 4)
        default: return Rect(x: -1, y: -1, width: width + 2, height: height + 2)
        }
    }
}
