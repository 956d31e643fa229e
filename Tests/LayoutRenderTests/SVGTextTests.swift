import Testing
@testable import LayoutRender

@Suite("SVG text")
struct SVGTextTests {
    @Test("Numbers to hundredths, half away from zero, without trailing zeros", arguments: [
        (12.0, "12"), (12.5, "12.5"), (12.25, "12.25"), (0.005, "0.01"), (-0.005, "-0.01"), (1.0 / 3, "0.33"),
        (2.0 / 3, "0.67"), (0.04, "0.04"), (-0.004, "0"), (-7.5, "-7.5"), (1e13, "1000000000000"),
        (Double.nan, "0"), (Double.infinity, "0"), (123_456.789, "123456.79"),
    ])
    func numbers(value: Double, text: String) {
        #expect(SVGText.number(value) == text)
    }

    @Test("Reserved characters are escaped")
    func escaping() {
        #expect(SVGText.escaped(#"a<b>&"c" é"#) == "a&lt;b&gt;&amp;&quot;c&quot; é")
    }
}
