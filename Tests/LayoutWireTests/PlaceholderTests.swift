import Testing
@testable import LayoutWire

@Test func moduleLinks() {}
