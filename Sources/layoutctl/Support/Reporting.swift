import ArgumentParser
import LayoutClient

extension GlobalOptions {
    /// Runs one request on the front socket and prints its reply: the body with `--json`, else the
    /// lines `summary` makes of the result. A failure goes to standard error (see `Layoutctl`'s exit codes).
    func perform(
        _ operation: (LayoutClient) throws(ClientError) -> Reply,
        summary: (AnyJSONObject) -> [String]
    ) throws {
        let reply: Reply
        do {
            reply = try operation(makeClient())
        } catch {
            throw Failure.report(error)
        }
        if json { Console.print(bytes: reply.body) }
        if let error = reply.error {
            Console.printError(error.description)
            throw ExitCode(Failure.replyErrorStatus)
        }
        if !json {
            Console.print(summary(reply.result).joined(separator: "\n"))
            if let endpoint = reply.directEndpoint { Console.print("read at the owner's direct endpoint \(endpoint)") }
        }
    }
}

/// How layoutctl reports what went wrong.
enum Failure {
    /// The daemon answered with an error.
    static let replyErrorStatus: Int32 = 1
    /// No answer came, or the input could not be read or sent.
    static let clientErrorStatus: Int32 = 2

    /// Prints `error` to standard error; returns the exit code to throw.
    static func report(_ error: ClientError) -> ExitCode {
        Console.printError(error.description)
        return ExitCode(clientErrorStatus)
    }
}
