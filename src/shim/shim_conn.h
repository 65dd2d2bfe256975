/* The shim's one background thread: registers the tenant with batond and
 * keeps it registered. Never touches the frame path. libc + pthread. */
#pragma once

#include <stdbool.h>

#include "shim/shim.h"
#include "shim/shim_config.h"

/* Retry delays. After a lost connection (or none to make) the tenant tries
 * again every 250 ms, so it is back within ~0.5 s of a daemon restart. A
 * daemon that answered with an error will answer the same hello the same
 * way: retrying it four times a second would only flood the daemon's log. */
#define SHIM_CONN_RETRY_NS         250000000LL
#define SHIM_CONN_REFUSED_RETRY_NS 5000000000LL

/* Starts the thread, which owns a copy of cfg and sends memfd (which must
 * stay open for the life of the process) with every hello. All signals are
 * blocked in it: they belong to the game's threads. false if the thread
 * could not be created (the game then runs unregistered). */
bool shim_conn_start(const struct shim_config *cfg, enum shim_api api,
                     int memfd);

/* True once an attempt to register has failed (nothing listens on the
 * socket, the hello could not be sent, batond refused it or hung up before
 * its welcome) and none has succeeded since; false before the first
 * attempt ends. The frame path asks it (one relaxed atomic load) to know
 * whether batond's control block may still come. */
bool shim_conn_absent(void);

/* For the fork child: the parent's connection must not stay open in it (the
 * daemon would never see the parent go), and the thread does not exist
 * there. Async-signal-safe. */
void shim_conn_forget_in_child(void);
