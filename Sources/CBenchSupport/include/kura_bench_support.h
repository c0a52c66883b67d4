#ifndef KURA_BENCH_SUPPORT_H
#define KURA_BENCH_SUPPORT_H

/// Starts callgrind's instrumentation, when the program runs under
/// `valgrind --tool=callgrind --instr-atstart=no` (kura-bench's `--profile` region; elsewhere,
/// and where valgrind's headers were missing at build time, it does nothing).
void kura_bench_start_instrumentation(void);

/// Stops callgrind's instrumentation (the end of the `--profile` region).
void kura_bench_stop_instrumentation(void);

/// Whether the program was built with valgrind's client requests (`valgrind/callgrind.h`).
int kura_bench_has_client_requests(void);

/// Moves process or thread `pid` (0: the calling thread) to CPU `cpu` alone, or, with
/// `cpu` below 0, back to every CPU in `saved`. Before moving, the CPUs it could run on are
/// written to `saved` (a buffer of `kura_bench_cpu_set_size()` bytes) unless `saved` is NULL.
/// Returns 0, or -1 with `errno` set (another user's process without the privilege, a pid
/// that is gone, or no such call on this system).
int kura_bench_place(int pid, int cpu, void *saved);

/// The size of the buffer `kura_bench_place` keeps a process's CPUs in.
int kura_bench_cpu_set_size(void);

/// The CPU the calling thread runs on, or -1.
int kura_bench_current_cpu(void);

#endif
