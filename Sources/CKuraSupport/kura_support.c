#include "kura_support.h"
// All helpers are static inline in the header; this file gives the target a translation unit.
