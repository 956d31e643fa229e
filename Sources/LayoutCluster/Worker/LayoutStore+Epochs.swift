import LayoutServer

/// A worker keeps, as each key's store stamp, the broker epoch the key last changed under: READY
/// reports it with the version, a restarted broker orders copies of a key by (epoch, version), and a
/// direct read names the epoch of the copy it expects.
extension LayoutStore {
    /// Records that `key` changed under `epoch`; never goes back.
    func stamp(_ key: LayoutKey, epoch: UInt64) {
        raiseStamp(of: key, to: epoch)
    }
}

extension LayoutStore.Summary {
    /// The broker epoch the copy last changed under (0: none yet).
    var epoch: UInt64 { stamp }
}
