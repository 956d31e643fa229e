#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names of one executable's benchmarks (or tests): `--only` picks among them, and a run goes through
/// them in the order they are declared.
public protocol BenchSelection: RawRepresentable, CaseIterable, Sendable where RawValue == String {}

/// What an executable runs, which decides how its lines and its flags are named.
public enum BenchKind: Sendable {
    /// `{"bench":…}` lines, `--quick`, `--only BENCH[,BENCH…]`, `benches` in the `environment` line.
    case benchmarks
    /// `{"test":…}` lines, `--small`, `--only TEST[,TEST…]`, `tests` in the `environment` line: the load
    /// and fault suite.
    case tests

    /// The key that names every line: `bench` or `test`.
    public var lineKey: String { self == .benchmarks ? "bench" : "test" }
    /// The flag of a scaled-down run, without its dashes, and its field in the `environment` line.
    var quickFlag: String { self == .benchmarks ? "quick" : "small" }
    /// The `environment` line's field listing what runs.
    var selectionField: String { self == .benchmarks ? "benches" : "tests" }
    var placeholder: String { self == .benchmarks ? "BENCH" : "TEST" }
    var noun: String { self == .benchmarks ? "benchmarks" : "tests" }
}

/// An executable's own flags, beside the harness's `--quick` (`--small`), `--only` and `--help`.
public protocol BenchFlags: Sendable {
    init()
    /// Their entries in the usage, in order; an internal flag (one the executable passes to a child of
    /// its own) has none.
    static var usage: [BenchFlagUsage] { get }
    /// Takes `flag`, and the values that follow it, from `arguments`; false when `flag` is not one of these.
    mutating func parse(_ flag: String, from arguments: inout ArraySlice<String>) throws(UsageError) -> Bool
}

/// One flag in the usage: `--layout KIND[,KIND…]` and what it does.
public struct BenchFlagUsage: Sendable {
    public var synopsis: String
    public var help: String

    public init(_ synopsis: String, _ help: String) {
        self.synopsis = synopsis
        self.help = help
    }

    var flag: Substring { synopsis.prefix { $0 != " " } }
}

/// No flags of its own.
public struct NoBenchFlags: BenchFlags {
    public init() {}
    public static var usage: [BenchFlagUsage] { [] }
    public func parse(_ flag: String, from arguments: inout ArraySlice<String>) throws(UsageError) -> Bool { false }
}

/// A parsed command line.
public struct BenchOptions<Name: BenchSelection, Flags: BenchFlags>: Sendable {
    /// `--quick` (`--small` for the tests): small counts, for CI.
    public var quick = false
    /// `--only`: what runs, in declaration order; everything by default.
    public var selected: [Name] = Array(Name.allCases)
    public var flags = Flags()
    public var showsHelp = false
}

/// What the benchmark executables and the soak suite share: the command line (`--quick` or `--small`,
/// `--only NAME[,NAME…]`, `--help`, each executable's own flags), the usage, the `environment` first
/// line, running the selected benchmarks with their `error` lines, the closing `load`/`goal`/`goals` or
/// `summary` lines, and the exit status: 0, 1 when something failed, 64 for a bad command line.
public struct BenchHarness<Name: BenchSelection, Flags: BenchFlags>: Sendable {
    public typealias Options = BenchOptions<Name, Flags>

    /// The lines after the last benchmark's.
    public enum Closing: Sendable {
        case none
        /// `load` (the load averages after the run), one `goal` line per goal, then `goals` with the totals.
        case loadAndGoals
        /// `summary`: how many passed and failed, and which failed (the tests).
        case summary
    }

    /// The executable's name, at the start of its usage and of every message on stderr.
    public let command: String
    public let kind: BenchKind
    /// What `--quick` (`--small`) does, for the usage.
    public let quickHelp: String
    /// The usage's last paragraph: what a run does and prints.
    public let about: String

    public init(command: String, kind: BenchKind = .benchmarks, quickHelp: String, about: String) {
        self.command = command
        self.kind = kind
        self.quickHelp = quickHelp
        self.about = about
    }

    public var usage: String {
        let placeholder = kind.placeholder
        let synopsis = ["--\(kind.quickFlag)", "--only \(placeholder)[,\(placeholder)…]"] + Flags.usage.map(\.synopsis)
        let entries: [(flag: Substring, help: String)] = [
            ("--\(kind.quickFlag)"[...], quickHelp),
            ("--only", "run only these \(kind.noun): \(Name.allCases.map(\.rawValue).joined(separator: ", "))"),
        ] + Flags.usage.map { ($0.flag, $0.help) }
        let width = max(11, (entries.map(\.flag.count).max() ?? 0) + 2)
        let lines = entries.map { "  " + $0.flag + String(repeating: " ", count: width - $0.flag.count) + $0.help }
        return "usage: \(command) " + synopsis.map { "[\($0)]" }.joined(separator: " ") + "\n\n"
            + lines.joined(separator: "\n") + "\n\n" + about
    }

    /// The command line, or the mistake in it.
    public func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "--\(kind.quickFlag)":
                options.quick = true
            case "--only":
                options.selected = try remaining.popList(after: flag, of: Name.self)
            case "--help", "-h":
                options.showsHelp = true
            default:
                guard try options.flags.parse(flag, from: &remaining) else {
                    throw UsageError(description: "unknown argument \(flag)")
                }
            }
        }
        return options
    }

    /// This process's command line. With `--help` it prints the usage and exits 0; on a mistake it says
    /// what is wrong, then the usage, on stderr and exits 64.
    public func options(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Options {
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            fail("\(error)\n\(usage)", status: 64)
        }
        if options.showsHelp {
            print(usage)
            exit(0)
        }
        return options
    }

    /// The first line: `{"bench":"environment","build":…,"quick":…,"cpus":…, fields…, "loadAverage1m":…,
    /// "benches":…, trailing…}` (`test`, `small` and `tests` for the tests).
    /// - Parameters:
    ///   - fields: the executable's own, after `cpus`.
    ///   - loadAverage: whether `loadAverage1m` (now) goes in, after `fields`.
    ///   - trailing: the executable's own, after the selection.
    public func emitEnvironment(
        _ options: Options, cpus: Int = BenchHost.onlineProcessors, _ fields: [(String, BenchValue)] = [],
        loadAverage: Bool = true, trailing: [(String, BenchValue)] = []
    ) {
        var line: [(String, BenchValue)] = [
            (kind.lineKey, "environment"),
            ("build", .string(BenchHost.isDebugBuild ? "debug" : "release")),
            (kind.quickFlag, .bool(options.quick)),
            ("cpus", .int(cpus)),
        ]
        line += fields
        if loadAverage { line.append(("loadAverage1m", .figure(BenchHost.loadAverages[0]))) }
        line.append((kind.selectionField, .string(options.selected.map(\.rawValue).joined(separator: ","))))
        line += trailing
        emit(line)
    }

    /// Runs `body` for each selected name in order. A name fails when its body returns false (it has
    /// printed why) or throws (the harness prints `{"bench":name,"error":…}`); the others run regardless.
    /// Then the `closing` lines, `tearDown`, and, when any failed, `failure` (or the kind's own message)
    /// on stderr and exit 1.
    public func run(
        _ options: Options, closing: Closing, failure: String? = nil, tearDown: () -> Void = {},
        _ body: (Name, inout Goals) throws -> Bool
    ) {
        var goals = Goals()
        var failed: [Name] = []
        for name in options.selected {
            do {
                if try !body(name, &goals) { failed.append(name) }
            } catch {
                failed.append(name)
                emit([(kind.lineKey, .string(name.rawValue)), ("error", .string("\(error)"))])
            }
        }
        switch closing {
        case .none:
            break
        case .loadAndGoals:
            let load = BenchHost.loadAverages
            emit([(kind.lineKey, "load"), ("loadAverage1m", .figure(load[0])), ("loadAverage5m", .figure(load[1]))])
            goals.emitAll(lineKey: kind.lineKey)
        case .summary:
            emit([
                (kind.lineKey, "summary"), ("passed", .int(options.selected.count - failed.count)),
                ("failed", .int(failed.count)), ("failedTests", .string(failed.map(\.rawValue).joined(separator: ","))),
            ])
        }
        tearDown()
        guard failed.isEmpty else {
            switch kind {
            case .benchmarks: fail(failure ?? "a benchmark failed (see its \"error\" line)")
            case .tests: fail(failure ?? "failed: \(failed.map(\.rawValue).joined(separator: ", ")) (see their \"failures\")")
            }
        }
    }

    /// What `make` returns: the servers or context a run needs. When it throws, `command: failure: error`
    /// (`command: error` without `failure`) on stderr and exit 1.
    public func setUp<Value>(_ failure: String? = nil, _ make: () throws -> Value) -> Value {
        do {
            return try make()
        } catch {
            fail(failure.map { "\($0): \(error)" } ?? "\(error)")
        }
    }

    /// `command: message` on stderr, then exit with `status`.
    public func fail(_ message: String, status: Int32 = 1) -> Never {
        var standardError = StandardError()
        print("\(command): \(message)", to: &standardError)
        exit(status)
    }
}

/// Facts about the machine and the build that the `environment` and `load` lines report.
public enum BenchHost {
    /// Online processors.
    public static var onlineProcessors: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// The 1, 5 and 15 minute load averages; NaN (`null` as a figure) where unknown.
    public static var loadAverages: [Double] {
        var load = [Double](repeating: .nan, count: 3)
        _ = getloadavg(&load, 3)
        return load
    }

    /// True in a debug build (the package builds every target in one configuration).
    public static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }
}

/// A benchmark that could not run as intended; its `error` line carries the description.
public struct BenchFailure: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// How often a measurement runs: warm-ups first (discarded), then the timed runs.
public struct Repetitions: Sendable {
    public var warmUps: Int
    public var runs: Int

    public init(warmUps: Int, runs: Int) {
        self.warmUps = warmUps
        self.runs = runs
    }
}
