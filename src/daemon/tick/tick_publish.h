/* The control loop's side of publishing (daemon/publish/publish.h): what
 * each profile admits on this node, handed to the publisher thread. */
#pragma once

struct daemon;

/* What the control loop calls after each tick: the inputs of both
 * profiles from d, handed over. Nothing when d->publisher is NULL. */
void publish_offer(struct daemon *d);
