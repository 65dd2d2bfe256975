/* The control plane: a Unix stream socket, one JSON object per line,
 * protocol BATON_PROTO_VERSION. A message to the daemon is at most
 * BATON_MSG_MAX bytes including the newline, and so are the daemon's
 * welcome, ok and error lines, the only ones a tenant connection receives.
 * A status reply grows with the tenants (about 350 bytes each; the
 * longest possible, at server.h's SERVER_MAX_CONNS, fits SERVER_MAX_OUT
 * twice): a client reads it with a buffer that grows (cli/client.h).
 *
 * Every connection starts with a hello; the daemon answers welcome or error:
 *
 *   shim  -> {"type":"hello","version":1,"role":"tenant","name":"glxgears",
 *             "sla_fps":45,"fixed_fps":0,"api":"gl"}   + SCM_RIGHTS memfd
 *             (and "cap":0.25 when BATON_CAP is set: its published GPU
 *             cap, which may lower its app entry's, never raise it)
 *   batond-> {"type":"welcome","version":1,"id":7}
 *   be    -> {"type":"hello","version":1,"role":"be","name":"matmul",
 *             "weight":1,"cap":0.5}   + SCM_RIGHTS memfd
 *             (a best-effort tenant, GPU grid / docs/harvesting.md: no
 *             SLA; weight in (0, 1000], default 1; cap optional, in
 *             (0, 1]; its records carry BATON_FRAME_BE, its control
 *             block be_window_ns, cap_ns_per_s as its budget and
 *             BATON_CONTROL_BE_CONTINUOUS; "sla_fps" and "fixed_fps"
 *             are refused, "api" is informative, e.g. "opencl")
 *   batond-> {"type":"welcome","version":1,"id":8}
 *   cli   -> {"type":"hello","version":1,"role":"client"}
 *   batond-> {"type":"welcome","version":1}
 *
 * sla_fps 0 means "the daemon's default SLA", fixed_fps 0 "not pinned";
 * any other rate lies in [1, 1000] (IPC_FPS_MIN, IPC_FPS_MAX in msg.h).
 * Names are cleaned of control, bidi and zero-width characters (msg.h). A
 * tenant may then change its own registration on its own connection
 * ({"type":"set","sla_fps":N} or "fixed_fps"); clients that are root, the
 * daemon's uid, or in its group or its admin_group (supplementary groups
 * count) may send admin requests:
 *
 *   {"type":"status"}                       -> {"type":"status", ...}
 *   {"type":"set","name":"x","fixed_fps":N} -> {"type":"ok"}
 *   {"type":"set","name":"x","sla_fps":N}   -> {"type":"ok"}
 *   {"type":"set","id":7,"sla_fps":N}       -> {"type":"ok"}
 *   {"type":"set","uid":1000,"fixed_fps":N} -> {"type":"ok"}
 *   {"type":"policy","name":"esa"}          -> {"type":"ok"}
 *   {"type":"set","id":7,"cap":0.25}        -> {"type":"ok"}  (0: none)
 *   {"type":"set","id":7,"work_conserving":false} -> {"type":"ok"}
 *   {"type":"set","id":8,"weight":2}        -> {"type":"ok"}
 *   {"type":"set","id":7,"level":2}         -> {"type":"ok"}  (-1: unpin)
 *
 * A best-effort tenant takes "weight" and "cap" only; a game takes no
 * "weight" (a set that gives a field to a tenant it does not apply to is
 * refused, invalid, nothing changed). "level" pins a game that uses the
 * SDK's quality API (include/baton/baton.h) at one of the levels it
 * declared, 0 = its cheapest; a game without declarations, or a level it
 * did not declare, is refused the same way.
 *
 * and any user (no admin needed: aggregate load only) may ask
 *
 *   {"type":"capacity","profile":"glmark2"} or
 *   {"type":"capacity","cost_ms":8,"sla_fps":30}
 *     -> {"type":"capacity","fits":true,"more":3,"reason":"fits",
 *         "source":"config","cost_ms":8,"sla_fps":30,"load":0.3,
 *         "newcomer":0.24,"overhead":1.0,"limit":0.7,"severe":false,
 *         "overloaded":0}
 *     (newcomer = cost x SLA x overhead: the load the tenants cause
 *     over what they report, core/caps.h)
 *
 * and where a new session goes (`baton run` without --gpu; the profile,
 * or cost_ms and sla_fps, may be left out: cost unknown)
 *
 *   {"type":"place","profile":"glmark2"}
 *     -> {"type":"place","placed":true,"by":"spread","cost":"config",
 *         "gpu":{"name":"left","device":"","pci":"","uuid":"",
 *         "cpus":"0-3","kind":"cpus"},"gpus":[{"name":"left","fits":true,
 *         "reason":"fits","load":0.2,"limit":0.7,"tenants":1},...]}
 *     (placed false: "reason" says why, each GPU's in "gpus")
 *
 * A set names tenants by "name", "id" (the welcome's) and "uid", all
 * given must match; a name alone that tenants of more than one uid share
 * is refused (invalid, the matches listed) unless "all":true. Any user may
 * set their own tenants this way; another user's needs admin. A uid past
 * batond's max_tenants_per_uid (games and best-effort tenants together)
 * is refused (denied) at the hello.
 *
 * Any failure is answered {"type":"error","code":"...","message":"..."}
 * (codes below); a malformed, oversized or wrong-version message ends that
 * connection only. The status reply:
 *
 *   {"type":"status","policy":"sa","gpu_util":0.62,"tenants":[{"name":...,
 *    "pid":1234,"sla_fps":30,"target_fps":30.3,"fps":30.2,
 *    "frame_ms_p99":34.1,"gpu_share":0.21,"claimed_share":0.21,
 *    "below_sla_s":0,"kind":"game",
 *    "quality":{"game":"arena","levels":["low","high"],"level":1,
 *    "pinned":false,"in_use":1,"types":2}}],
 *    ("quality" only for a game that declared its levels; "level" is the
 *    one in force: the pin, else batond's choice, else the default)
 *    "be":[{"kind":"be","name":"matmul","id":8,"weight":1,"budget":0.4,
 *    "window_ms":7.2,"mode":"periodical","units_per_s":830,
 *    "gpu_share":0.4,"wait_ratio":0.5,...}]}
 */
#pragma once

#define BATON_PROTO_VERSION 1
#define BATON_MSG_MAX       4096

/* error codes */
#define BATON_ERR_PROTOCOL  "protocol"  /* malformed, oversized, no hello */
#define BATON_ERR_VERSION   "version"   /* unsupported protocol version */
#define BATON_ERR_DENIED    "denied"    /* peer may not do that */
#define BATON_ERR_NOT_FOUND "not_found" /* no tenant of that name */
#define BATON_ERR_INVALID   "invalid"   /* a field is missing or out of range */
#define BATON_ERR_SHM       "shm"       /* the memfd failed validation */
