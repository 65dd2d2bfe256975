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
	     "\"name\":\"a\\nb\"}",
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
	int fds[IPC_MAX_FDS];
	size_t nfds;
	assert_int_equal(
	    ipc_recv_with_fds(sv[1], buf, sizeof(buf), fds, IPC_MAX_FDS, &nfds),
	    3);
	assert_int_equal(nfds, 1);
	/* The received descriptor is the pipe's read end. */
	assert_int_equal(write(p[1], "z", 1), 1);
	char z;
	assert_int_equal(read(fds[0], &z, 1), 1);
	assert_int_equal(z, 'z');
	close(fds[0]);

	/* Three descriptors where the receiver takes one: two are closed. */
	int before = open_fds();
	struct iovec iov = {.iov_base = "x", .iov_len = 1};
	union {
		char b[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} ctl = {0};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = ctl.b,
	                     .msg_controllen = sizeof(ctl.b)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(3 * sizeof(int));
	int three[3] = {p[0], p[1], p[0]};
	memcpy(CMSG_DATA(c), three, sizeof(three));
	assert_int_equal(sendmsg(sv[0], &msg, 0), 1);
	assert_int_equal(
	    ipc_recv_with_fds(sv[1], buf, sizeof(buf), fds, 1, &nfds), 1);
	assert_int_equal(nfds, 1);
	assert_int_equal(open_fds(), before + 1);
	close(fds[0]);

	/* End of stream. */
	close(sv[0]);
	assert_int_equal(
	    ipc_recv_with_fds(sv[1], buf, sizeof(buf), fds, 1, &nfds), 0);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid_messages),
	    cmocka_unit_test(test_refused_messages),
	    cmocka_unit_test(test_line_framing),
	    cmocka_unit_test(test_encoders),
	    cmocka_unit_test(test_fd_passing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
