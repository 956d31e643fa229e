/// The leading frames of a message on the back socket, read in place as they arrive:
/// `[identity, "", "MDPW01", command, …]`, the last frame kept apart.
struct WorkerMessageHead {
    static let empty: [UInt8] = []

    private(set) var count = 0
    private(set) var identity: [UInt8] = []
    private(set) var wellFormed = true
    private(set) var command: WorkerCommand?
    private(set) var token: RequestToken?
    private(set) var delimiterEmpty = false
    /// Frames after the command that are neither a REPLY's token nor its delimiter (READY's service, a
    /// snapshot's header).
    private(set) var extra: [[UInt8]] = []

    /// Counts a frame kept elsewhere (a REPLY's frames after its delimiter).
    mutating func skip() {
        count += 1
    }

    mutating func read(_ frame: UnsafeRawBufferPointer) {
        switch count {
        case 0: identity = Array(frame)
        case 1: wellFormed = wellFormed && frame.isEmpty
        case 2: wellFormed = wellFormed && WorkerProtocol.isHeader(frame)
        case 3: command = frame.count == 1 ? WorkerCommand(rawValue: frame[0]) : nil
        case 4 where command == .reply: token = RequestToken(frame: frame)
        case 5 where command == .reply: delimiterEmpty = frame.isEmpty
        default: extra.append(Array(frame))
        }
        count += 1
    }
}
