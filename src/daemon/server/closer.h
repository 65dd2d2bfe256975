/* Closing peers' descriptors off the event loop.
 *
 * Dropping the last reference to a file runs its release in the thread
 * that drops it (task_work on the way back from close()): a TCP socket
 * with SO_LINGER {1, N} and a full send buffer, or a FUSE file, blocks
 * whoever closes it, for as long as its owner likes. So does closing a
 * Unix socket whose receive queue still holds such descriptors in flight.
 * batond never closes a peer's descriptor on its loop: it hands them here.
 *
 * One lane per uid (the uid of the connection the descriptor came from or
 * belongs to), each drained by its own worker thread, started when the
 * lane fills and gone when it is empty: a close that blocks holds up only
 * its own user's lane. What a lane holds counts against that uid
 * (closer_pending); the server refuses new connections, and stops reading
 * the connections, of a uid whose lane backs up, so a user cannot grow it
 * without bound. Workers block no signal the loop thread does not (they
 * inherit its mask).
 *
 * What is left: a user whose close is stuck (a linger of an hour) and who
 * keeps connecting, with descriptors queued before batond accepts, still
 * costs one descriptor per connection (the refused socket waits behind
 * the stuck close) until the server's total cap on them
 * (server_limits.pending_cap) rests the listener and stops reading. The
 * loop, its ticks and the games already registered go on; new
 * connections wait until the linger ends. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct closer;

/* NULL when out of memory. */
struct closer *closer_new(void);

/* Queues fd, a descriptor a peer of uid sent or could have loaded, to be
 * closed by that uid's worker. Never waits for a close. If neither the
 * queue nor a worker can be had (out of memory, no threads), closes it
 * here and says so in the log: better than leaking it. */
void closer_put(struct closer *c, int fd, uid_t uid);

/* Our end of a connection of uid: shut for reading (from then on the peer
 * cannot queue anything more on it), then closed here at once if nothing
 * is queued on it (so no descriptor of the peer's can be in flight in it
 * and closing it runs no one else's release), else handed to closer_put.
 * Saves a thread hop for almost every connection. */
void closer_put_socket(struct closer *c, int fd, uid_t uid);

/* Descriptors of uid queued or being closed. */
size_t closer_pending(struct closer *c, uid_t uid);
/* Of every uid. */
size_t closer_pending_total(struct closer *c);

/* Waits up to wait_ms for the workers to finish and frees everything; a
 * worker still stuck in a close then is left to end with the process (its
 * state is not freed). */
void closer_free(struct closer *c, int wait_ms);
