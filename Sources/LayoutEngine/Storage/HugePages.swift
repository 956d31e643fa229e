#if os(Linux)
import Glibc
#endif

/// Transparent huge pages for the large buffers frames live in.
///
/// A 10^7-item layout fills 320 MB of fresh memory. In 4 KiB pages that is 78 000 page faults, which cost
/// more than computing the frames, and a rect query anywhere in it misses the TLB on every column it reads.
/// With 2 MiB pages both shrink 512-fold. Linux backs a region with huge pages only when asked
/// (`transparent_hugepage=madvise`, the common default), so large buffers ask; elsewhere this does nothing.
enum HugePages {
    /// The huge page size on x86-64 and arm64 Linux.
    static let size = 2 << 20

    /// Buffers below this keep small pages: they cover too few whole huge pages to matter.
    static let threshold = 4 << 20

    /// Advises the kernel to back the whole huge pages inside `buffer` with huge pages, before it is
    /// first written. Only a hint: the contents and every later use of the buffer are unaffected.
    static func advise<Element>(_ buffer: UnsafeMutableBufferPointer<Element>) {
        #if os(Linux)
        guard let base = buffer.baseAddress else { return }
        let bytes = buffer.count * MemoryLayout<Element>.stride
        guard bytes >= threshold else { return }
        let start = (UInt(bitPattern: base) + UInt(size - 1)) & ~UInt(size - 1)
        let end = (UInt(bitPattern: base) + UInt(bytes)) & ~UInt(size - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        // A failure (no THP support, an old kernel) just leaves small pages.
        _ = madvise(aligned, Int(end - start), MADV_HUGEPAGE)
        #endif
    }
}
