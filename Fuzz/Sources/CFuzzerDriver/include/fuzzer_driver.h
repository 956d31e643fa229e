#ifndef LAYOUTD_FUZZER_DRIVER_H
#define LAYOUTD_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's own driver (compiler-rt, linked by -sanitize=fuzzer): parses libFuzzer's flags from
/// argv and runs `callback` on every input. Called from the fuzzer's main, because SwiftPM gives an
/// executable a Swift entry point of its own, so libFuzzer's main cannot be used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
