#include "kura_bench_support.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define KURA_BENCH_CALLGRIND 1
#endif
#endif

void kura_bench_start_instrumentation(void) {
#ifdef KURA_BENCH_CALLGRIND
  CALLGRIND_START_INSTRUMENTATION;
#endif
}

void kura_bench_stop_instrumentation(void) {
#ifdef KURA_BENCH_CALLGRIND
  CALLGRIND_STOP_INSTRUMENTATION;
#endif
}

int kura_bench_has_client_requests(void) {
#ifdef KURA_BENCH_CALLGRIND
  return 1;
#else
  return 0;
#endif
}
