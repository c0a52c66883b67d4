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

#endif
