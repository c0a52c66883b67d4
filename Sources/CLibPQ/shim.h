#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#error "Kura's PostgreSQL module (KuraPostgreSQL) needs libpq's headers: install them with `apt-get install libpq-dev` (or run scripts/setup, which installs everything the build and the tests need)."
#endif
