#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time this process has used (user + system, every thread): clients and in-process daemons together.
enum ProcessCPU {
    static var seconds: Double {
        var usage = rusage()
        #if canImport(Glibc)
        let status = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        let status = getrusage(RUSAGE_SELF, &usage)
        #endif
        guard status == 0 else { return .nan }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
