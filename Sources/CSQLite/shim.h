// SQLite 3 as Debian's libsqlite3-dev ships it (scripts/ensure-deps installs it).
#include <sqlite3.h>
