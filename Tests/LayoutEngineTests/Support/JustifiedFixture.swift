import Foundation
@testable import LayoutEngine

/// One case of Fixtures/justified (see its README): flickr's input and config, and the output of
/// flickr's justified-layout 4.1.0 for them.
struct JustifiedFixture: Decodable {
    /// flickr's input: an aspect ratio, or `{width, height}`.
    enum Input: Decodable {
        case aspectRatio(Double)
        case size(width: Double, height: Double)

        private enum Keys: String, CodingKey { case width, height }

        init(from decoder: any Decoder) throws {
            if let ratio = try? decoder.singleValueContainer().decode(Double.self) {
                self = .aspectRatio(ratio)
                return
            }
            let object = try decoder.container(keyedBy: Keys.self)
            self = .size(width: try object.decode(Double.self, forKey: .width), height: try object.decode(Double.self, forKey: .height))
        }

        var sizing: ItemSizing {
            switch self {
            case .aspectRatio(let r): return ItemSizing(aspectRatio: r)
            case let .size(width, height): return ItemSizing(height: height, width: width)
            }
        }
    }

    /// A number for every side, or one value per side (flickr's `containerPadding`, `boxSpacing`).
    struct Sides: Decodable {
        var top, left, bottom, right, horizontal, vertical: Double?
        var all: Double?

        init(from decoder: any Decoder) throws {
            if let value = try? decoder.singleValueContainer().decode(Double.self) {
                all = value
                return
            }
            let object = try decoder.container(keyedBy: Keys.self)
            top = try object.decodeIfPresent(Double.self, forKey: .top)
            left = try object.decodeIfPresent(Double.self, forKey: .left)
            bottom = try object.decodeIfPresent(Double.self, forKey: .bottom)
            right = try object.decodeIfPresent(Double.self, forKey: .right)
            horizontal = try object.decodeIfPresent(Double.self, forKey: .horizontal)
            vertical = try object.decodeIfPresent(Double.self, forKey: .vertical)
        }

        private enum Keys: String, CodingKey { case top, left, bottom, right, horizontal, vertical }

        var insets: Insets {
            all.map(Insets.init(all:)) ?? Insets(top: top ?? 0, left: left ?? 0, bottom: bottom ?? 0, right: right ?? 0)
        }

        var spacing: JustifiedParameters.BoxSpacing {
            all.map(JustifiedParameters.BoxSpacing.init(all:)) ?? .init(horizontal: horizontal ?? 0, vertical: vertical ?? 0)
        }
    }

    struct Config: Decodable {
        var containerWidth: Double?
        var containerPadding: Sides?
        var boxSpacing: Sides?
        var targetRowHeight: Double?
        var targetRowHeightTolerance: Double?
        var maxNumRows: Int?
        var forceAspectRatio: Double?
        var showWidows: Bool?
        var fullWidthBreakoutRowCadence: Int?
        var widowLayoutStyle: String?
    }

    struct Expected: Decodable {
        var containerHeight: Double
        var widowCount: Int
        /// `[left, top, width, height]` per box, for the items flickr laid out (a prefix of the input).
        var boxes: [[Double]]
    }

    var name: String
    var source: String
    var config: Config
    var input: [Input]
    var expected: Expected

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/justified")

    /// The fixture files, by name.
    static var fileNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func load(_ fileName: String) throws -> JustifiedFixture {
        try JSONDecoder().decode(JustifiedFixture.self, from: Data(contentsOf: directory.appendingPathComponent(fileName)))
    }

    /// flickr's defaults with the config's options, by the names of LAYOUTS.md `justified`.
    var parameters: JustifiedParameters {
        get throws {
            var p = JustifiedParameters()
            if let v = config.containerPadding { p.sectionInsets = v.insets }
            if let v = config.boxSpacing { p.boxSpacing = v.spacing }
            if let v = config.targetRowHeight { p.targetRowHeight = v }
            if let v = config.targetRowHeightTolerance { p.targetRowHeightTolerance = v }
            p.maxNumRows = config.maxNumRows
            p.forceAspectRatio = config.forceAspectRatio
            if let v = config.showWidows { p.showWidows = v }
            p.fullWidthBreakoutRowCadence = config.fullWidthBreakoutRowCadence
            if let style = config.widowLayoutStyle {
                guard let v = JustifiedParameters.WidowLayoutStyle(rawValue: style) else { throw FixtureError.unknownStyle(style) }
                p.widowLayoutStyle = v
            }
            return p
        }
    }

    /// The contract's job: one section, no header or footer, `bounds.width` = flickr's containerWidth.
    var layoutInput: LayoutInput {
        get throws {
            LayoutInput(
                bounds: Size(width: config.containerWidth ?? 1060, height: 800),
                parameters: .justified(try parameters),
                sections: [Section(items: ItemSizes(input.map(\.sizing)))]
            )
        }
    }

    enum FixtureError: Error { case unknownStyle(String) }
}
