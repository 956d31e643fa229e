import Testing
@testable import ZeroMQ

@Test func moduleLinks() {}
