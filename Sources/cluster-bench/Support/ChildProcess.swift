import Foundation

/// A process the bench started and owns: stopped with SIGTERM (a drain), or killed at once.
protocol ChildProcess: AnyObject {
    var process: Process { get }
}

extension ChildProcess {
    /// SIGKILL: the process dies at once, its connections dropped by its kernel.
    func kill9() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, and waits for the process to exit.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
