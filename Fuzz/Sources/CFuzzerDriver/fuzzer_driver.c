// Declarations only (include/fuzzer_driver.h); the driver itself comes from libFuzzer.
#include "fuzzer_driver.h"
