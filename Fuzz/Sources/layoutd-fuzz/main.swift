import CFuzzerDriver
import Foundation

/// What every input runs against, made once (the base layouts are prepared before the first input).
let harness = Harness()

// libFuzzer's driver takes the command line (its flags, corpus directories, or files to replay) and
// calls back with each input; a broken invariant aborts, which it reports as a crash with the input.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    harness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
})
