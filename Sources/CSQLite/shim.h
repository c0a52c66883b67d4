#if __has_include(<sqlite3.h>)
#include <sqlite3.h>
#else
#error "Kura needs SQLite's headers: install them with `apt-get install libsqlite3-dev` (or run scripts/setup, which installs everything the build and the tests need)."
#endif
