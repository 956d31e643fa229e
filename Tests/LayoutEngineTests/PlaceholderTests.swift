import Testing
@testable import LayoutEngine

@Test func moduleLinks() {}
