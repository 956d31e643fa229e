import Testing
@testable import LayoutServer

@Suite struct MemoryTuningTests {
    /// Where glibc is the C library the settings must take: they once never did (the C file tested
    /// for glibc before any header defined `__GLIBC__`), and every large job faulted its memory in again.
    @Test func takesOnGlibc() {
        #if os(Linux) && canImport(Glibc)
        #expect(MemoryTuning.keepFreedBuffers())
        #endif
    }
}
