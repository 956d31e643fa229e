#ifndef LAYOUTD_MALLOC_TUNING_H
#define LAYOUTD_MALLOC_TUNING_H

/// Keeps large freed buffers in the process instead of returning them to the kernel at once (glibc).
/// Returns 1 when the settings were applied, 0 where the C library has no such knobs.
int layoutd_tune_malloc(long mmap_threshold, long trim_threshold, long top_pad);

#endif
