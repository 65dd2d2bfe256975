/* The quality lever in batond (docs/quality.md): a declared
 * game's models from DIR/GAME_ID.json (written by `baton profile`), the
 * core's per-level estimates from them each tick (dJay §5: the models on
 * the epoch's mean potential object counts), and the core's choice back
 * into the level the control block publishes.
 *
 * The game id is the tenant's own claim; it is a file name of [A-Za-z0-9._-]
 * (daemon/quality/quality.c checks it), so it names a file in DIR and nowhere
 * else. Whatever a peer claims, its estimates only rank its own levels: the
 * core calibrates them to the cost measured at the level it runs
 * (core/quality_stage.h). */
#pragma once

#include "core/quality_stage.h"
#include "daemon/quality/quality.h"

/* Once the game declared: loads its models, if DIR has them for its id,
 * its level and type counts. Logs what happened, naming the tenant (who)
 * and the file; a missing or bad file leaves the game without estimates
 * (one choice, its measured cost). false on a bad file. */
bool daemon_quality_load_models(struct daemon_quality *q, const char *dir,
                                const char *who);

/* The core's inputs for this tick: levels and estimates when models and
 * counts exist, the pin, the game's default level. */
void daemon_quality_inputs(const struct daemon_quality *q,
                           struct core_quality_tenant *cq);

/* The core's level back: batond publishes it (a pin still wins). true when
 * the level published changed. */
bool daemon_quality_take_choice(struct daemon_quality *q,
                                const struct core_quality_tenant *cq);
