/* Control messages: framing, parsing, encoding, descriptor passing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/fdpass.h"
#include "ipc/linebuf.h"
#include "ipc/msg.h"

static bool parse(const char *s, struct ipc_msg *m, struct ipc_msg_error *e)
{
	return ipc_msg_parse(s, strlen(s), m, e);
}

static void test_valid_messages(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                  "\"tenant\",\"name\":\"glxgears\",\"sla_fps\":45,"
	                  "\"fixed_fps\":0,\"api\":\"gl\",\"future\":[1]}",
	                  &m, &e));
	assert_int_equal(m.type, IPC_MSG_HELLO);
	assert_int_equal(m.hello.role, IPC_ROLE_TENANT);
	assert_string_equal(m.hello.name, "glxgears");
	assert_string_equal(m.hello.api, "gl");
	assert_float_equal(m.hello.sla_fps, 45, 0);

	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                  "\"client\"}",
	                  &m, &e));
	assert_int_equal(m.hello.role, IPC_ROLE_CLIENT);

	assert_true(parse("{\"type\":\"set\",\"sla_fps\":29.97}", &m, &e));
	assert_int_equal(m.type, IPC_MSG_SET);
	assert_false(m.set.has_name);
	assert_true(m.set.has_sla);
	assert_false(m.set.has_fixed);
	assert_float_equal(m.set.sla_fps, 29.97, 1e-12);

	assert_true(
	    parse("{\"type\":\"set\",\"name\":\"x\",\"fixed_fps\":0}", &m, &e));
	assert_true(m.set.has_name && m.set.has_fixed);
	assert_string_equal(m.set.name, "x");

	assert_true(parse("{\"type\":\"policy\",\"name\":\"esa\"}", &m, &e));
	assert_int_equal(m.type, IPC_MSG_POLICY);
	assert_string_equal(m.policy.name, "esa");

	assert_true(parse(" {\"type\" : \"status\"} ", &m, &e));
	assert_int_equal(m.type, IPC_MSG_STATUS);
}

struct bad {
	const char *line;
	const char *code;
};

static void test_refused_messages(void **state)
{
	(void)state;
	static const struct bad bad[] = {
	    {"", BATON_ERR_PROTOCOL},
	    {"{", BATON_ERR_PROTOCOL},
	    {"not json", BATON_ERR_PROTOCOL},
	    {"[1,2]", BATON_ERR_PROTOCOL},
	    {"{\"type\":\"status\"} {}", BATON_ERR_PROTOCOL},
	    {"{\"type\":7}", BATON_ERR_PROTOCOL},
	    {"{\"kind\":\"status\"}", BATON_ERR_PROTOCOL},
	    {"{\"type\":\"reboot\"}", BATON_ERR_PROTOCOL},
	    {"{\"type\":\"status\",\"type\":\"status\"}", BATON_ERR_PROTOCOL},
	    /* version */
	    {"{\"type\":\"hello\",\"version\":2,\"role\":\"client\"}",
	     BATON_ERR_VERSION},
	    {"{\"type\":\"hello\",\"version\":0,\"role\":\"client\"}",
	     BATON_ERR_VERSION},
	    /* wrong types, missing fields, ranges */
	    {"{\"type\":\"hello\",\"version\":\"1\",\"role\":\"client\"}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1.0,\"role\":\"client\"}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"role\":\"client\"}", BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1}", BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"root\"}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\"}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	     "\"name\":\"\"}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	     "\"name\":\"g\",\"sla_fps\":\"30\"}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	     "\"name\":\"g\",\"sla_fps\":-1}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	     "\"name\":\"g\",\"fixed_fps\":1e9}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	     "\"name\":\"g\",\"api\":5}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"set\"}", BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"sla_fps\":0}", BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"fixed_fps\":null}", BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"name\":3,\"fixed_fps\":1}",
	     BATON_ERR_INVALID},
	    /* rates under 1 FPS: an SLA of 5e-324 would mean "unpaced" */
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	     "\"name\":\"g\",\"sla_fps\":5e-324}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	     "\"name\":\"g\",\"fixed_fps\":0.5}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"sla_fps\":0.999}", BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"fixed_fps\":1e-300}", BATON_ERR_INVALID},
	    /* set by id, uid, all: typed and ranged */
	    {"{\"type\":\"set\",\"id\":0,\"fixed_fps\":1}", BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"id\":\"7\",\"fixed_fps\":1}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"id\":1.5,\"fixed_fps\":1}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"uid\":-1,\"fixed_fps\":1}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"uid\":4294967295,\"fixed_fps\":1}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"name\":\"x\",\"all\":1,\"fixed_fps\":1}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"set\",\"all\":true,\"fixed_fps\":1}",
	     BATON_ERR_INVALID},
	    {"{\"type\":\"policy\"}", BATON_ERR_INVALID},
	    {"{\"type\":\"policy\",\"name\":[]}", BATON_ERR_INVALID},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ipc_msg m;
		struct ipc_msg_error e;
		if (parse(bad[i].line, &m, &e))
			fail_msg("accepted: %s", bad[i].line);
		if (strcmp(e.code, bad[i].code) != 0)
			fail_msg("%s: code %s, expected %s (%s)", bad[i].line,
			         e.code, bad[i].code, e.message);
		assert_true(strlen(e.message) > 0);
	}
	/* A name one byte too long. */
	char line[256], name[IPC_NAME_MAX + 1];
	memset(name, 'n', IPC_NAME_MAX);
	name[IPC_NAME_MAX] = '\0';
	snprintf(line, sizeof(line),
	         "{\"type\":\"set\",\"name\":\"%s\",\"fixed_fps\":1}", name);
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_false(parse(line, &m, &e));
	assert_string_equal(e.code, BATON_ERR_INVALID);
	/* Embedded NUL: the length counts, not strlen. */
	assert_false(ipc_msg_parse("{\"type\":\"status\"}\0x", 19, &m, &e));
	assert_string_equal(e.code, BATON_ERR_PROTOCOL);
}

/* Names are cleaned at the hello and at set: control characters (C0, DEL,
 * C1), bidi embeddings, overrides and isolates, zero-width characters and
 * marks become '?'; everything else, UTF-8 included, is kept. */
static void test_names_cleaned(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                  "\"tenant\",\"name\":\"evil\\u202egnp.exe\"}",
	                  &m, &e));
	assert_string_equal(m.hello.name, "evil?gnp.exe");
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                  "\"tenant\",\"name\":\"a\\nb\\u001b[31m\\u007f\"}",
	                  &m, &e));
	assert_string_equal(m.hello.name, "a?b?[31m?");
	assert_true(parse("{\"type\":\"set\",\"name\":\"x\\u200by\\u2066z"
	                  "\\u0085\\ufeff\\u200f\\u2069\",\"sla_fps\":30}",
	                  &m, &e));
	assert_string_equal(m.set.name, "x?y?z????");
	/* kept: accents, CJK, an emoji */
	assert_true(
	    parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	          "\"tenant\",\"name\":\"Spiel f\\u00fcr \\u6e38\\u620f "
	          "\\ud83c\\udfae\"}",
	          &m, &e));
	assert_string_equal(m.hello.name,
	                    "Spiel f\xc3\xbcr \xe6\xb8\xb8\xe6\x88\x8f "
	                    "\xf0\x9f\x8e\xae");
	char s[] = "\xe2\x80\xae\xe2\x81\xa6ok\x1b";
	assert_int_equal(ipc_name_clean(s), 3);
	assert_string_equal(s, "??ok?");
}

/* Rates: [1, 1000], and 0 where it means "none" or "the default". */
static void test_rate_bounds(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                  "\"tenant\",\"name\":\"g\",\"sla_fps\":0,"
	                  "\"fixed_fps\":0}",
	                  &m, &e));
	assert_true(parse("{\"type\":\"set\",\"sla_fps\":1}", &m, &e));
	assert_true(parse("{\"type\":\"set\",\"fixed_fps\":0}", &m, &e));
	assert_true(parse("{\"type\":\"set\",\"fixed_fps\":1000}", &m, &e));
	assert_false(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                   "\"tenant\",\"name\":\"g\",\"sla_fps\":5e-324}",
	                   &m, &e));
	assert_non_null(strstr(e.message, "sla_fps"));
	assert_non_null(strstr(e.message, "[1, 1000]"));
}

/* set addresses tenants by name, id, uid, or a name across users (all). */
static void test_set_by_id_and_uid(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(parse("{\"type\":\"set\",\"id\":18446744073,"
	                  "\"fixed_fps\":60}",
	                  &m, &e));
	assert_true(m.set.has_id && !m.set.has_name && !m.set.has_uid);
	assert_true(m.set.id == 18446744073ULL);
	assert_true(parse("{\"type\":\"set\",\"uid\":65534,\"name\":\"g\","
	                  "\"sla_fps\":30}",
	                  &m, &e));
	assert_true(m.set.has_uid && m.set.has_name && !m.set.all);
	assert_int_equal(m.set.uid, 65534);
	assert_true(
	    parse("{\"type\":\"set\",\"uid\":0,\"sla_fps\":30}", &m, &e));
	assert_true(m.set.has_uid && m.set.uid == 0);
	assert_true(parse("{\"type\":\"set\",\"name\":\"g\",\"all\":true,"
	                  "\"sla_fps\":30}",
	                  &m, &e));
	assert_true(m.set.all);
}

/* What a peer sent reaches the log escaped; jansson's error text quotes
 * the input, so the parser's message is escaped too. */
static void test_escape(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(ipc_escape(buf, sizeof(buf), "a\x1b[2J\x07\\b"),
	                    "a\\x1b[2J\\x07\\x5cb");
	assert_string_equal(ipc_escape(buf, sizeof(buf), "\xe2\x80\xae"),
	                    "\\xe2\\x80\\xae");
	char small[8];
	assert_string_equal(ipc_escape(small, sizeof(small), "abcdefghij"),
	                    "abcd...");
	struct ipc_msg m;
	struct ipc_msg_error e;
	const char line[] = "{\"type\":\x1b]0;x\x07}";
	assert_false(ipc_msg_parse(line, sizeof(line) - 1, &m, &e));
	for (const char *p = e.message; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

static void test_line_framing(void **state)
{
	(void)state;
	struct ipc_linebuf *lb = malloc(sizeof(*lb));
	char *out = malloc(BATON_MSG_MAX);
	size_t len;
	ipc_linebuf_init(lb);
	assert_int_equal(ipc_linebuf_take(lb, out, &len), 0);
	ipc_linebuf_feed(lb, "{\"a\":", 5);
	assert_int_equal(ipc_linebuf_take(lb, out, &len), 0);
	ipc_linebuf_feed(lb, "1}\n{\"b\":2}\n{\"c\"", 15);
	assert_int_equal(ipc_linebuf_take(lb, out, &len), 1);
	assert_string_equal(out, "{\"a\":1}");
	assert_int_equal(len, 7);
	assert_int_equal(ipc_linebuf_take(lb, out, &len), 1);
	assert_string_equal(out, "{\"b\":2}");
	assert_int_equal(ipc_linebuf_take(lb, out, &len), 0);
	assert_int_equal(lb->len, 4);

	/* Exactly BATON_MSG_MAX bytes with the newline: accepted. */
	ipc_linebuf_init(lb);
	char *big = malloc(BATON_MSG_MAX + 1);
	memset(big, 'x', BATON_MSG_MAX);
	big[BATON_MSG_MAX - 1] = '\n';
	assert_int_equal(ipc_linebuf_feed(lb, big, BATON_MSG_MAX),
	                 BATON_MSG_MAX);
	assert_int_equal(ipc_linebuf_take(lb, out, &len), 1);
	assert_int_equal(len, BATON_MSG_MAX - 1);
	/* One more byte before the newline: too long. */
	ipc_linebuf_init(lb);
	big[BATON_MSG_MAX - 1] = 'x';
	assert_int_equal(ipc_linebuf_feed(lb, big, BATON_MSG_MAX + 1),
	                 BATON_MSG_MAX);
	assert_int_equal(ipc_linebuf_take(lb, out, &len), -EMSGSIZE);
	size_t avail;
	ipc_linebuf_space(lb, &avail);
	assert_int_equal(avail, 0);
	free(big);
	free(out);
	free(lb);
}

static void test_encoders(void **state)
{
	(void)state;
	char *s = ipc_msg_welcome(7);
	assert_string_equal(s,
	                    "{\"type\":\"welcome\",\"version\":1,\"id\":7}\n");
	free(s);
	s = ipc_msg_welcome(-1);
	assert_string_equal(s, "{\"type\":\"welcome\",\"version\":1}\n");
	free(s);
	s = ipc_msg_ok();
	assert_string_equal(s, "{\"type\":\"ok\"}\n");
	free(s);
	s = ipc_msg_error_line(BATON_ERR_DENIED, "no \"way\"");
	assert_string_equal(s, "{\"type\":\"error\",\"code\":\"denied\","
	                       "\"message\":\"no \\\"way\\\"\"}\n");
	free(s);
	/* What the CLI sends parses as what the daemon expects. */
	s = ipc_msg_hello_client();
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(ipc_msg_parse(s, strlen(s) - 1, &m, &e));
	assert_int_equal(m.hello.role, IPC_ROLE_CLIENT);
	free(s);
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_fd_passing(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(ipc_send_with_fd(sv[0], "hi\n", 3, p[0]), 3);
	char buf[16];
	int fds[IPC_RECV_MAX_FDS];
	size_t nfds;
	assert_int_equal(ipc_recv_with_fds(sv[1], buf, sizeof(buf), fds, &nfds),
	                 3);
	assert_int_equal(nfds, 1);
	/* The received descriptor is the pipe's read end. */
	assert_int_equal(write(p[1], "z", 1), 1);
	char z;
	assert_int_equal(read(fds[0], &z, 1), 1);
	assert_int_equal(z, 'z');
	close(fds[0]);

	/* A full SCM_RIGHTS list (SCM_MAX_FD): every descriptor comes back,
	 * none is closed (or dropped by the kernel) in the receiver. */
	int before = open_fds();
	struct iovec iov = {.iov_base = "x", .iov_len = 1};
	union {
		char b[CMSG_SPACE(IPC_RECV_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl = {0};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = ctl.b,
	                     .msg_controllen = sizeof(ctl.b)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(IPC_RECV_MAX_FDS * sizeof(int));
	int many[IPC_RECV_MAX_FDS];
	for (int i = 0; i < IPC_RECV_MAX_FDS; i++)
		many[i] = p[i % 2];
	memcpy(CMSG_DATA(c), many, sizeof(many));
	assert_int_equal(sendmsg(sv[0], &msg, 0), 1);
	assert_int_equal(ipc_recv_with_fds(sv[1], buf, sizeof(buf), fds, &nfds),
	                 1);
	assert_int_equal(nfds, IPC_RECV_MAX_FDS);
	assert_int_equal(open_fds(), before + IPC_RECV_MAX_FDS);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);

	/* End of stream. */
	close(sv[0]);
	assert_int_equal(ipc_recv_with_fds(sv[1], buf, sizeof(buf), fds, &nfds),
	                 0);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

/* Caps: in (0, 1] in a hello (0 = none) and a set (0 = remove); NaN,
 * infinities, negatives, past one and non-numbers refused with the
 * field named. */
static void test_caps(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                  "\"tenant\",\"name\":\"g\",\"cap\":0.25}",
	                  &m, &e));
	assert_float_equal(m.hello.cap, 0.25, 0);
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                  "\"tenant\",\"name\":\"g\"}",
	                  &m, &e));
	assert_float_equal(m.hello.cap, 0.0, 0);
	assert_true(
	    parse("{\"type\":\"set\",\"name\":\"g\",\"cap\":1}", &m, &e));
	assert_true(m.set.has_cap && !m.set.has_sla && !m.set.has_wc);
	assert_float_equal(m.set.cap, 1.0, 0);
	assert_true(parse("{\"type\":\"set\",\"id\":2,\"cap\":0}", &m, &e));
	assert_true(m.set.has_cap);
	assert_float_equal(m.set.cap, 0.0, 0);
	assert_true(parse("{\"type\":\"set\",\"id\":2,"
	                  "\"work_conserving\":true}",
	                  &m, &e));
	assert_true(m.set.has_wc && m.set.work_conserving && !m.set.has_cap);

	static const char *const bad[] = {
	    "{\"type\":\"set\",\"id\":2,\"cap\":1.0001}",
	    "{\"type\":\"set\",\"id\":2,\"cap\":-0.1}",
	    "{\"type\":\"set\",\"id\":2,\"cap\":\"0.5\"}",
	    "{\"type\":\"set\",\"id\":2,\"cap\":null}",
	    "{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	    "\"name\":\"g\",\"cap\":2}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(parse(bad[i], &m, &e));
		assert_string_equal(e.code, BATON_ERR_INVALID);
		assert_non_null(strstr(e.message, "\"cap\""));
	}
	/* jansson refuses a number past DBL_MAX (no infinity gets in) */
	assert_false(
	    parse("{\"type\":\"set\",\"id\":2,\"cap\":1e999}", &m, &e));
	assert_false(parse("{\"type\":\"set\",\"id\":2,"
	                   "\"work_conserving\":1}",
	                   &m, &e));
	assert_non_null(strstr(e.message, "work_conserving"));
	/* a set with nothing to change names the four */
	assert_false(parse("{\"type\":\"set\",\"id\":2}", &m, &e));
	assert_non_null(strstr(e.message, "\"cap\""));
}

static void test_capacity(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(
	    parse("{\"type\":\"capacity\",\"profile\":\"glmark2\"}", &m, &e));
	assert_int_equal(m.type, IPC_MSG_CAPACITY);
	assert_true(m.capacity.has_profile);
	assert_string_equal(m.capacity.profile, "glmark2");
	assert_true(parse("{\"type\":\"capacity\",\"cost_ms\":8.5,"
	                  "\"sla_fps\":30}",
	                  &m, &e));
	assert_false(m.capacity.has_profile);
	assert_float_equal(m.capacity.cost_ms, 8.5, 0);
	assert_float_equal(m.capacity.sla_fps, 30, 0);
	assert_float_equal(m.capacity.encoder, 0, 0); /* not given */
	assert_float_equal(m.capacity.vram_mb, 0, 0);
	/* the encoder and VRAM a session needs, with a profile or a cost */
	assert_true(parse("{\"type\":\"capacity\",\"profile\":\"g\","
	                  "\"encoder\":0.25,\"vram_mb\":2048}",
	                  &m, &e));
	assert_float_equal(m.capacity.encoder, 0.25, 0);
	assert_float_equal(m.capacity.vram_mb, 2048, 0);
	assert_true(parse("{\"type\":\"capacity\",\"cost_ms\":1,"
	                  "\"sla_fps\":30,\"encoder\":1}",
	                  &m, &e));
	assert_float_equal(m.capacity.encoder, 1, 0);

	static const struct {
		const char *line, *says;
	} bad[] = {
	    {"{\"type\":\"capacity\"}", "needs"},
	    {"{\"type\":\"capacity\",\"cost_ms\":8}", "needs"},
	    {"{\"type\":\"capacity\",\"sla_fps\":30}", "needs"},
	    {"{\"type\":\"capacity\",\"profile\":\"g\",\"sla_fps\":30}",
	     "not both"},
	    {"{\"type\":\"capacity\",\"cost_ms\":0,\"sla_fps\":30}", "cost_ms"},
	    {"{\"type\":\"capacity\",\"cost_ms\":10001,\"sla_fps\":30}",
	     "cost_ms"},
	    {"{\"type\":\"capacity\",\"cost_ms\":5,\"sla_fps\":0}", "sla_fps"},
	    {"{\"type\":\"capacity\",\"profile\":\"\"}", "profile"},
	    {"{\"type\":\"capacity\",\"profile\":\"a\\u0007\"}", "control"},
	    {"{\"type\":\"capacity\",\"profile\":\"g\",\"encoder\":0}",
	     "\"encoder\" must be a number in (0, 1]"},
	    {"{\"type\":\"capacity\",\"profile\":\"g\",\"encoder\":1.01}",
	     "\"encoder\""},
	    {"{\"type\":\"capacity\",\"profile\":\"g\",\"encoder\":\"x\"}",
	     "\"encoder\""},
	    {"{\"type\":\"capacity\",\"profile\":\"g\",\"vram_mb\":-1}",
	     "\"vram_mb\" must be a number in (0, 16777216]"},
	    {"{\"type\":\"capacity\",\"profile\":\"g\",\"vram_mb\":1e9}",
	     "\"vram_mb\""},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(parse(bad[i].line, &m, &e));
		assert_string_equal(e.code, BATON_ERR_INVALID);
		if (!strstr(e.message, bad[i].says))
			fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].line,
			         e.message, bad[i].says);
	}
}

/* place: a profile, a cost and an SLA, or nothing (cost unknown); every
 * refusal names the field. */
static void test_place(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(parse("{\"type\":\"place\"}", &m, &e));
	assert_int_equal(m.type, IPC_MSG_PLACE);
	assert_false(m.place.has_profile);
	assert_false(m.place.has_cost);
	assert_true(
	    parse("{\"type\":\"place\",\"profile\":\"vkcube\"}", &m, &e));
	assert_true(m.place.has_profile);
	assert_string_equal(m.place.profile, "vkcube");
	assert_true(parse("{\"type\":\"place\",\"cost_ms\":4,"
	                  "\"sla_fps\":60}",
	                  &m, &e));
	assert_true(m.place.has_cost);
	assert_float_equal(m.place.cost_ms, 4, 0);
	assert_float_equal(m.place.sla_fps, 60, 0);

	static const struct {
		const char *line, *says;
	} bad[] = {
	    {"{\"type\":\"place\",\"cost_ms\":8}", "together"},
	    {"{\"type\":\"place\",\"sla_fps\":30}", "together"},
	    {"{\"type\":\"place\",\"profile\":\"g\",\"cost_ms\":1,"
	     "\"sla_fps\":30}",
	     "not both"},
	    {"{\"type\":\"place\",\"cost_ms\":-1,\"sla_fps\":30}", "cost_ms"},
	    {"{\"type\":\"place\",\"cost_ms\":\"8\",\"sla_fps\":30}",
	     "cost_ms"},
	    {"{\"type\":\"place\",\"cost_ms\":5,\"sla_fps\":1e9}", "sla_fps"},
	    {"{\"type\":\"place\",\"profile\":7}", "profile"},
	    {"{\"type\":\"place\",\"profile\":\"\"}", "profile"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(parse(bad[i].line, &m, &e));
		assert_string_equal(e.code, BATON_ERR_INVALID);
		if (!strstr(e.message, bad[i].says))
			fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].line,
			         e.message, bad[i].says);
	}
}

/* Best-effort hellos (role "be"): weight in (0, 1000], default 1; cap in
 * (0, 1] (0 is no cap: leave it out); no pacing fields; every refusal
 * names the field. A set may give a weight. */
static void test_be_hello(void **state)
{
	(void)state;
	struct ipc_msg m;
	struct ipc_msg_error e;
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":\"be\","
	                  "\"name\":\"matmul\",\"weight\":2.5,\"cap\":0.5,"
	                  "\"api\":\"opencl\"}",
	                  &m, &e));
	assert_int_equal(m.hello.role, IPC_ROLE_BE);
	assert_string_equal(m.hello.name, "matmul");
	assert_float_equal(m.hello.weight, 2.5, 0);
	assert_float_equal(m.hello.cap, 0.5, 0);
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":\"be\","
	                  "\"name\":\"m\"}",
	                  &m, &e));
	assert_float_equal(m.hello.weight, 1.0, 0);
	assert_float_equal(m.hello.cap, 0.0, 0);
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":\"be\","
	                  "\"name\":\"m\",\"weight\":1000,\"cap\":1}",
	                  &m, &e));
	assert_float_equal(m.hello.weight, 1000.0, 0);
	assert_false(m.hello.partition);
	/* space harvesting: a client that can run on a CPU partition */
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":\"be\","
	                  "\"name\":\"m\",\"partition\":true}",
	                  &m, &e));
	assert_true(m.hello.partition);
	assert_false(m.hello.idle);
	/* and follows the idle-priority lane */
	assert_true(parse("{\"type\":\"hello\",\"version\":1,\"role\":\"be\","
	                  "\"name\":\"m\",\"partition\":true,\"idle\":true}",
	                  &m, &e));
	assert_true(m.hello.partition && m.hello.idle);

	static const struct {
		const char *line, *says;
	} bad[] = {
	    {"\"weight\":0", "\"weight\""},
	    {"\"weight\":-1", "\"weight\""},
	    {"\"weight\":1000.5", "\"weight\""},
	    {"\"weight\":\"1\"", "\"weight\""},
	    {"\"weight\":null", "\"weight\""},
	    {"\"cap\":0", "\"cap\""},
	    {"\"cap\":1.5", "\"cap\""},
	    {"\"cap\":true", "\"cap\""},
	    {"\"sla_fps\":30", "\"sla_fps\""},
	    {"\"fixed_fps\":0", "\"fixed_fps\""},
	    {"\"partition\":1", "\"partition\""},
	    {"\"partition\":\"yes\"", "\"partition\""},
	    {"\"idle\":1", "\"idle\""},
	    {"\"idle\":null", "\"idle\""},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[256];
		snprintf(line, sizeof(line),
		         "{\"type\":\"hello\",\"version\":1,\"role\":"
		         "\"be\",\"name\":\"m\",%s}",
		         bad[i].line);
		assert_false(parse(line, &m, &e));
		assert_string_equal(e.code, BATON_ERR_INVALID);
		if (!strstr(e.message, bad[i].says))
			fail_msg("%s: \"%s\" lacks %s", line, e.message,
			         bad[i].says);
	}
	/* a name is required, as for a game */
	assert_false(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                   "\"be\"}",
	                   &m, &e));
	assert_non_null(strstr(e.message, "\"name\""));
	/* an unknown role lists the three */
	assert_false(parse("{\"type\":\"hello\",\"version\":1,\"role\":"
	                   "\"batch\",\"name\":\"m\"}",
	                   &m, &e));
	assert_non_null(strstr(e.message, "\"be\""));

	assert_true(parse("{\"type\":\"set\",\"id\":8,\"weight\":3}", &m, &e));
	assert_true(m.set.has_weight && !m.set.has_cap && !m.set.has_sla);
	assert_float_equal(m.set.weight, 3.0, 0);
	assert_false(parse("{\"type\":\"set\",\"id\":8,\"weight\":0}", &m, &e));
	assert_non_null(strstr(e.message, "\"weight\""));
	assert_false(parse("{\"type\":\"set\",\"id\":8}", &m, &e));
	assert_non_null(strstr(e.message, "\"weight\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid_messages),
	    cmocka_unit_test(test_refused_messages),
	    cmocka_unit_test(test_names_cleaned),
	    cmocka_unit_test(test_rate_bounds),
	    cmocka_unit_test(test_set_by_id_and_uid),
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_line_framing),
	    cmocka_unit_test(test_encoders),
	    cmocka_unit_test(test_fd_passing),
	    cmocka_unit_test(test_caps),
	    cmocka_unit_test(test_capacity),
	    cmocka_unit_test(test_place),
	    cmocka_unit_test(test_be_hello),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
