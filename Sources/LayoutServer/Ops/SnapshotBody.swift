import LayoutEngine
import LayoutWire

/// A kept layout written back as the body of a `prepare` that rebuilds it: what a cluster worker sends
/// its broker to compact a recipe, and what a daemon writes to its journal in place of a key's changes.
///
/// The body is checked before it is used: decoded as a replay will decode it, it must give the same
/// input, and one that `prepare` accepts (a batch checks less than a `prepare` does, so a layout that
/// batches made is not taken on trust). A body that fails is not used: the caller keeps what it had.
public enum SnapshotBody {
    public static func encode(layout name: String, input: LayoutInput, limits: InputLimits) -> Result<JSONWriter, WireError> {
        let writer = PrepareBodyEncoder.body(layout: name, input: input)
        let check: WireError? = writer.withUnsafeBytes { bytes in
            do throws(WireError) {
                guard case .prepare(let prepare) = try RequestDecoder().decode(bytes).operation, prepare.layout == name else {
                    return WireError(.internal, "the snapshot does not decode as a prepare of \"\(name)\"")
                }
                guard prepare.input.describesSameLayout(as: input) else {
                    return WireError(.internal, "the snapshot decodes to another input than the layout's")
                }
                do throws(LayoutError) {
                    try prepare.input.validate(limits: limits)
                } catch {
                    return WireError(.internal, "a prepare would refuse the layout's input: \(error.message)")
                }
                return nil
            } catch {
                return WireError(.internal, "the snapshot does not decode: \(error.message)")
            }
        }
        if let check { return .failure(check) }
        return .success(writer)
    }
}
