import LayoutTestKit
#if canImport(Glibc)
import Glibc
#endif

/// Runs this very executable again, so a memory figure is read in a process that has done nothing else:
/// freed memory from earlier benchmarks stays in the allocator and would hide the next one's growth.
enum ChildProcess {
    /// What the child printed on stdout, or nil when it could not run or did not exit with status 0.
    static func outputOfSelf(arguments: [String]) -> String? {
        #if os(Linux)
        let executable = "/proc/self/exe"
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The child needs no environment; an empty one keeps it from depending on ours.
        let environment: [UnsafeMutablePointer<CChar>?] = [nil]

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        close(writeEnd)
        defer { close(readEnd) }
        guard spawned == 0 else { return nil }

        let output = readAll(readEnd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // 0 is "exited normally with status 0" (WIFEXITED && WEXITSTATUS == 0).
        return status == 0 ? output : nil
        #else
        return nil
        #endif
    }
}
