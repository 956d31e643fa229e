import ZeroMQ

extension WorkerOrder {
    var isHeartbeat: Bool {
        if case .heartbeat = self { return true }
        return false
    }

    /// Sends the order to the worker connected with `routingID` on the broker's back ROUTER, as MDP
    /// frames (PROTOCOL.md §10.2): `[routingID, "", "MDPW01", command, …]`. A heartbeat carries the
    /// broker's `epoch` and, to a worker with a direct endpoint, its read lease `grant`. False when the
    /// worker's connection is gone: only the first frame can fail, a ROUTER with `routerMandatory`
    /// refusing an unknown peer there.
    func send(to routingID: [UInt8], on back: Socket, epoch: UInt64, grant: LeaseGrant?) throws(ZeroMQError) -> Bool {
        guard try back.send(routingID, flags: [.dontWait, .sendMore]) else { return false }
        try back.send(WorkerMessageHead.empty, flags: .sendMore)
        try back.send(WorkerProtocol.header, flags: .sendMore)
        switch self {
        case .request(let token, let body, let caller):
            try sendHead(.request, token: token, on: back)
            if let caller { try back.send(caller.workerFrame, flags: .sendMore) }
            try back.send(body.frame())
        case .restore(let token, let header, let bodies):
            try sendHead(.restore, token: token, on: back)
            try back.send(header.frame, flags: bodies.isEmpty ? [] : .sendMore)
            for (index, body) in bodies.enumerated() {
                try back.send(body.frame(), flags: index == bodies.count - 1 ? [] : .sendMore)
            }
        case .release(let keys):
            let frames = ReleaseFrames.encode(keys)
            try back.send(WorkerCommand.release.frame, flags: frames.isEmpty ? [] : .sendMore)
            for (index, frame) in frames.enumerated() {
                try back.send(frame, flags: index == frames.count - 1 ? [] : .sendMore)
            }
        case .snapshot(let token, let request):
            try sendHead(.snapshot, token: token, on: back)
            try back.send(request.frame)
        case .fence(let token, let request):
            try sendHead(.fence, token: token, on: back)
            try back.send(request.frame)
        case .heartbeat:
            // The broker's epoch (protocol 4); a worker of an earlier protocol ignores the frame.
            try back.send(WorkerCommand.heartbeat.frame, flags: .sendMore)
            var epoch = epoch.littleEndian
            try back.send(withUnsafeBytes(of: &epoch) { Array($0) }, flags: grant == nil ? [] : .sendMore)
            // To a worker with a direct endpoint, its read lease (`LeaseGrant`).
            if let grant { try back.send(grant.frame) }
        case .disconnect:
            try back.send(WorkerCommand.disconnect.frame)
        }
        return true
    }

    /// The command, the token it is answered under, and the empty delimiter before its frames.
    private func sendHead(_ command: WorkerCommand, token: RequestToken, on back: Socket) throws(ZeroMQError) {
        try back.send(command.frame, flags: .sendMore)
        try back.send(token.frame, flags: .sendMore)
        try back.send(WorkerMessageHead.empty, flags: .sendMore)
    }
}
