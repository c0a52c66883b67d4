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

#endif
