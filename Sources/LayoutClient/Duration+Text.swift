extension Duration {
    /// `1.5s`, `250ms`: for messages.
    var secondsText: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        if milliseconds % 1_000 == 0 { return "\(milliseconds / 1_000)s" }
        if milliseconds < 1_000 { return "\(milliseconds)ms" }
        return "\(Double(milliseconds) / 1_000)s"
    }
}

extension Duration {
    /// The duration in whole milliseconds for a socket timeout option, rounded up so a short timeout is
    /// never "do not wait"; at least 0.
    var socketMilliseconds: Int32 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let milliseconds = Double(seconds) * 1_000 + (Double(attoseconds) / 1e15).rounded(.up)
        return milliseconds >= Double(Int32.max) ? Int32.max : Int32(milliseconds)
    }
}
