/// The leading frames of a message from the broker, read in place: `["", "MDPW01", command, …]`.
struct BrokerMessageHead {
    private(set) var count = 0
    private(set) var wellFormed = true
    private(set) var command: WorkerCommand?
    private(set) var token: RequestToken?
    private(set) var delimiterEmpty = false
    /// Frames after the command other than a REQUEST's, RESTORE's or SNAPSHOT's token and delimiter.
    private(set) var extra: [[UInt8]] = []

    mutating func read(_ frame: UnsafeRawBufferPointer) {
        switch count {
        case 0: wellFormed = wellFormed && frame.isEmpty
        case 1: wellFormed = wellFormed && WorkerProtocol.isHeader(frame)
        case 2: command = frame.count == 1 ? WorkerCommand(rawValue: frame[0]) : nil
        case 3 where command == .request || command == .restore || command == .snapshot || command == .fence: token = RequestToken(frame: frame)
        case 4 where command == .request || command == .restore || command == .snapshot || command == .fence: delimiterEmpty = frame.isEmpty
        default: extra.append(Array(frame))
        }
        count += 1
    }
}
