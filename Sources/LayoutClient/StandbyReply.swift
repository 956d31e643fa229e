/// Recognises a standby broker's answer, which a client with several endpoints takes as "ask the next
/// one": `{"ok":false,"error":{"code":"unavailable","message":"… standby …"}}`.
///
/// Only the word "standby" tells it from the other `unavailable` answers (no worker serving, a worker
/// lost during a change), which come from the active broker and must reach the caller.
enum StandbyReply {
    /// The error message of `reply` if it is a standby's answer; `nil` for any other reply.
    static func message(in reply: [UInt8]) -> String? {
        // Members are scanned, not parsed: a successful reply may carry megabytes of attributes.
        guard let ok = JSONMemberScanner.member("ok", in: reply), ok.elementsEqual("false".utf8),
              let errorText = JSONMemberScanner.member("error", in: reply),
              let error = JSONCoding.object(from: Array(errorText)),
              error["code"] as? String == ReplyError.Code.unavailable.rawValue,
              let message = error["message"] as? String,
              message.lowercased().contains("standby")
        else { return nil }
        return message
    }
}
