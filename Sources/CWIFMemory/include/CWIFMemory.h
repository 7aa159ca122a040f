#ifndef C_WIF_MEMORY_H
#define C_WIF_MEMORY_H

/// Sets the C allocator's thresholds for a process that moves large files: freed memory up to
/// 16 MiB stays in the process for reuse, and allocations under 1 MiB come from the heap rather
/// than from their own mappings.
///
/// glibc otherwise adjusts both thresholds as the program runs, and a transfer's stream of
/// short-lived buffers, from several threads at once, keeps giving memory back to the kernel and
/// faulting it in again, zero-filled, page by page. Does nothing on other C libraries.
/// Call it once, first thing in `main`, before other threads start.
void c_wif_tune_allocator(void);

#endif
