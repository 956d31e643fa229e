/// What `layoutctl render` draws: a job file, laid out locally, or a layout the daemon keeps.
enum PictureSource: Hashable {
    /// A path, or `-` for standard input.
    case jobFile(String)
    case key(String)

    /// The argument's reading, by its text alone (never by whether such a file exists, so a command
    /// means the same in every directory): a job file when it is `-`, contains a `/` or ends in
    /// `.json`; otherwise a key. `forcingKey` reads it as a key whatever it looks like.
    init(_ argument: String, forcingKey: Bool = false) {
        if !forcingKey, argument == "-" || argument.contains("/") || argument.hasSuffix(".json") {
            self = .jobFile(argument)
        } else {
            self = .key(argument)
        }
    }
}
