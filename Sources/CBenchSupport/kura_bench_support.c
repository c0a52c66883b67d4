#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // sched_getaffinity, sched_setaffinity, sched_getcpu
#endif

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

#if defined(__linux__)
#include <errno.h>
#include <sched.h>
#include <string.h>

int kura_bench_place(int pid, int cpu, void *saved) {
  if (cpu < 0) {
    return sched_setaffinity(pid, sizeof(cpu_set_t), (cpu_set_t *)saved);
  }
  if (saved != NULL && sched_getaffinity(pid, sizeof(cpu_set_t), (cpu_set_t *)saved) != 0) {
    return -1;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(pid, sizeof(cpu_set_t), &one);
}

int kura_bench_cpu_set_size(void) { return (int)sizeof(cpu_set_t); }

int kura_bench_current_cpu(void) { return sched_getcpu(); }
#else
#include <errno.h>

int kura_bench_place(int pid, int cpu, void *saved) {
  (void)pid;
  (void)cpu;
  (void)saved;
  errno = ENOSYS;
  return -1;
}

int kura_bench_cpu_set_size(void) { return 1; }

int kura_bench_current_cpu(void) { return -1; }
#endif
