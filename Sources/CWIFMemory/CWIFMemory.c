#include "CWIFMemory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void c_wif_tune_allocator(void) {
#if defined(__GLIBC__)
    // Setting either threshold turns off glibc's dynamic adjustment of both.
    mallopt(M_TRIM_THRESHOLD, 16 * 1024 * 1024);
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
#endif
}
