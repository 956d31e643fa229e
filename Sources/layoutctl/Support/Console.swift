import Foundation

/// Unbuffered writes to standard output and standard error, so lines of `watch` appear at once even
/// through a pipe, and both streams stay in order.
enum Console {
    static func print(_ text: String) {
        write(text + "\n", to: .standardOutput)
    }

    static func print(bytes: [UInt8]) {
        write(Data(bytes) + Data([UInt8(ascii: "\n")]), to: .standardOutput)
    }

    static func printError(_ text: String) {
        write(text + "\n", to: .standardError)
    }

    private static func write(_ text: String, to handle: FileHandle) {
        write(Data(text.utf8), to: handle)
    }

    private static func write(_ data: Data, to handle: FileHandle) {
        // A closed pipe is the reader's choice (`| head`); nothing useful is left to report it to.
        try? handle.write(contentsOf: data)
    }
}
