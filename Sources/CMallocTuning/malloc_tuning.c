// Why C: mallopt and its M_* constants are not exposed by Swift's Glibc module.
#include "malloc_tuning.h"
// Before the test below: __GLIBC__ comes from <features.h>, which any libc header includes. Without it
// the test was always false and the settings were never made.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>

int layoutd_tune_malloc(long mmap_threshold, long trim_threshold, long top_pad) {
    int ok = 1;
    ok &= mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
    ok &= mallopt(M_TRIM_THRESHOLD, (int)trim_threshold);
    ok &= mallopt(M_TOP_PAD, (int)top_pad);
    return ok;
}
#else
int layoutd_tune_malloc(long mmap_threshold, long trim_threshold, long top_pad) {
    (void)mmap_threshold; (void)trim_threshold; (void)top_pad;
    return 0;
}
#endif
