import Dispatch
import LayoutServer
import LayoutWire
import ZeroMQ

/// Requests on the worker's direct endpoint (PROTOCOL.md §11).
extension WorkerLink {
    /// A request from the direct endpoint: a cheap read that came first in its batch (`alone`), of a key
    /// no admitted request is on, is decoded and answered here, as a single daemon's `FrontDesk` answers
    /// one: the pool's hand-offs cost more than such a read. The rest of a batch goes to the pool, whose
    /// threads share a burst of pipelined reads that this one thread would take one after another (with
    /// every read answered here, pipelined direct reads fell to 0.56–0.59 of a single daemon's, against
    /// 0.76–0.89 through the pool, in the same runs). False when the pool is full (the front answers
    /// `busy`).
    func admitDirect(envelope: Envelope, body: RequestBody, read: DirectRead, alone: Bool, at directFront: DirectFront) -> Bool {
        guard let jobs = directJobs, body.attachments.isEmpty, body.count <= InlineAnswerBounds.maxBodyBytes else {
            // Decoded by the pool, which finds it on the desk.
            directReads?.file(read, with: body)
            return pool.submit(envelope: envelope, body: body, context: .none)
        }
        let arrived = DispatchTime.now().uptimeNanoseconds
        switch jobs.decodeDirect(body, arrivedIn: read.leaseTerm) {
        case .reply(let reply):
            answerHere(reply, to: envelope, since: arrived, at: directFront)
            return true
        case .run(let job, let key):
            if alone, pool.room(for: key) == .free, let reply = jobs.answerDirectAtOnce(job) {
                // Replies the workers posted leave first, as they would have had the pool answered this.
                let posted = deliverMailbox()
                deliveredWhileReceiving.events = deliveredWhileReceiving.events || posted.events
                deliveredWhileReceiving.shutdown = deliveredWhileReceiving.shutdown || posted.shutdown
                answerHere(reply, to: envelope, since: arrived, at: directFront)
                return true
            }
            // At the bound, `submit` refuses it and the front answers `busy`, as for any request.
            return pool.submit(envelope: envelope, decoded: job, key: key)
        }
    }

    private func answerHere(_ reply: JobReply, to envelope: Envelope, since arrived: UInt64, at directFront: DirectFront) {
        let now = DispatchTime.now().uptimeNanoseconds
        stats.recordRequest(op: reply.op, micros: (now > arrived ? now - arrived : 0) / 1000, errorCode: reply.errorCode)
        directFront.send(envelope: envelope, body: reply.body)
    }
}
