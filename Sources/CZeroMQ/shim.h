// Only the stable libzmq API (no ZMQ_BUILD_DRAFT_API): it is what Debian's libzmq3-dev ships.
#include <zmq.h>
