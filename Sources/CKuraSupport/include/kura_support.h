#ifndef KURA_SUPPORT_H
#define KURA_SUPPORT_H

#include <stdint.h>

/// Atomically loads a 64-bit counter that may live in memory shared by several processes.
static inline uint64_t kura_atomic_load_u64(const volatile uint64_t *address) {
  return __atomic_load_n(address, __ATOMIC_ACQUIRE);
}

/// Atomically adds to a 64-bit counter shared by several processes; returns the new value.
static inline uint64_t kura_atomic_add_u64(volatile uint64_t *address, uint64_t delta) {
  return __atomic_add_fetch(address, delta, __ATOMIC_ACQ_REL);
}

/// Atomically stores a 64-bit value shared by several processes.
static inline void kura_atomic_store_u64(volatile uint64_t *address, uint64_t value) {
  __atomic_store_n(address, value, __ATOMIC_RELEASE);
}

/// Reads the commit stamp of an SQLite WAL index (the start of the `-shm` memory, as SQLite maps
/// it): the transaction counter `iChange` in the low 32 bits and the WAL's second salt in the high
/// 32 bits, from the header's first copy. SQLite writes the header's second copy, then the first;
/// they are read in the other order and compared. Returns 1 when the copies agree (a settled
/// header), 0 while one is being written (read again).
static inline int kura_wal_index_stamp(const volatile void *shm, uint64_t *stamp) {
  const volatile uint32_t *first = (const volatile uint32_t *)shm;
  const volatile uint32_t *second = first + 12;
  uint32_t copy[12];
  for (int i = 0; i < 12; i++) copy[i] = __atomic_load_n(&first[i], __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  // Word 2 of the header is `iChange`; word 9 is `aSalt[1]`.
  *stamp = ((uint64_t)copy[9] << 32) | (uint64_t)copy[2];
  for (int i = 0; i < 12; i++) {
    if (__atomic_load_n(&second[i], __ATOMIC_RELAXED) != copy[i]) return 0;
  }
  return 1;
}

#endif
