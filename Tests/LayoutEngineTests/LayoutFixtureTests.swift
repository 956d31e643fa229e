import Foundation
import Testing
import LayoutWire
@testable import LayoutEngine

/// The layout fixtures (`Fixtures/layouts/*.json`, described in the README there): inputs whose frames
/// were worked out by hand from docs/LAYOUTS.md, each run in both directions, as Yoga runs its generated
/// fixtures: left to right gives the expected frames, right to left their mirror images.
@Suite struct LayoutFixtureTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/layouts")

    /// Every fixture file, by name.
    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test func everyLayoutHasFixtures() throws {
        let covered = Set(try Self.names.map { try LayoutFixture(named: $0).input.parameters.kind })
        for kind in LayoutKind.allCases {
            #expect(covered.contains(kind), "no fixture in Fixtures/layouts for \(kind)")
        }
    }

    @Test(arguments: names, LayoutDirection.allCases)
    func framesAreTheWorkedOutOnes(name: String, direction: LayoutDirection) throws {
        let fixture = try LayoutFixture(named: name)
        var input = fixture.input
        input.layoutDirection = direction
        let layout = try PreparedLayout.prepare(input)
        #expect(layout.contentSize == fixture.contentSize, "\(name)")

        let expected = direction == .leftToRight ? fixture.elements : fixture.elements.map { fixture.mirrored($0) }
        var actual: [LayoutElement] = []
        layout.forEachElement { actual.append($0) }
        #expect(actual.count == expected.count, "\(name): \(actual.count) elements, \(expected.count) expected")
        for (found, wanted) in zip(actual, expected) where found != wanted {
            Issue.record("\(name), \(direction): \(found) instead of \(wanted)")
            return
        }
    }
}

/// One fixture file: a wire layout input and the elements it must give left to right.
struct LayoutFixture {
    struct FormatError: Error, CustomStringConvertible {
        var description: String
    }

    var input: LayoutInput
    var contentSize: Size
    /// Every element in layout order, left to right.
    var elements: [LayoutElement]

    init(named name: String) throws {
        let data = try Data(contentsOf: LayoutFixtureTests.directory.appendingPathComponent(name))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              var body = root["input"] as? [String: Any],
              let expected = root["expected"] as? [String: Any],
              let size = expected["contentSize"] as? [String: Any],
              let elements = expected["elements"] as? [[String: Any]]
        else { throw FormatError(description: "\(name): needs input, expected.contentSize and expected.elements") }
        guard body["layoutDirection"] == nil, body["op"] == nil else {
            throw FormatError(description: "\(name): the input gives no op and no layoutDirection (the test runs both)")
        }
        // The input is what a `layout` request carries: decoded by the wire decoder, as the daemon does.
        body["op"] = "layout"
        guard case .layout(let request) = try RequestDecoder().decode(Array(try JSONSerialization.data(withJSONObject: body)))
            .operation else { throw FormatError(description: "\(name): not a layout input") }
        input = request.input
        contentSize = Size(width: try Self.number(size["width"], name), height: try Self.number(size["height"], name))
        self.elements = try elements.map { try Self.element($0, name) }
    }

    /// `element` mirrored by LAYOUTS.md's rule, restated here: inside `W`, or `bounds.width` for
    /// columnFlow, x becomes `M - (x + width)`.
    func mirrored(_ element: LayoutElement) -> LayoutElement {
        let insets = input.contentInsets
        let m = input.parameters.kind == .columnFlow ? input.bounds.width : input.bounds.width - insets.left - insets.right
        var mirrored = element
        mirrored.frame.x = m - (element.frame.x + element.frame.width)
        return mirrored
    }

    private static func element(_ object: [String: Any], _ name: String) throws -> LayoutElement {
        guard let kindName = object["kind"] as? String,
              let kind = ElementKind.allCases.first(where: { $0.name == kindName }),
              let section = object["section"] as? Int, let item = object["item"] as? Int,
              let frame = object["frame"] as? [Any], frame.count == 4
        else { throw FormatError(description: "\(name): bad element \(object)") }
        let values = try frame.map { try number($0, name) }
        return LayoutElement(kind: kind, section: section, item: item, frame: Rect(x: values[0], y: values[1], width: values[2], height: values[3]))
    }

    private static func number(_ value: Any?, _ name: String) throws -> Double {
        guard let number = value as? NSNumber else { throw FormatError(description: "\(name): \(String(describing: value)) is not a number") }
        return number.doubleValue
    }
}
