// libpq, PostgreSQL's own client library, as Debian's libpq-dev ships it (scripts/ensure-deps installs
// it): the journal's PostgreSQL backend and the brokers' lease. Debian puts the header in a folder of its
// own; libpq-fe.h finds its neighbours (postgres_ext.h) there by itself.
#include <postgresql/libpq-fe.h>
