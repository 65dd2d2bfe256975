/* Where batond listens (socket_path.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc/socket_path.h"

static void test_precedence(void **state)
{
	(void)state;
	char buf[108];
	setenv("BATON_SOCKET", "/tmp/x.sock", 1);
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	assert_true(ipc_socket_path(buf, sizeof(buf)));
	assert_string_equal(buf, "/tmp/x.sock");

	unsetenv("BATON_SOCKET");
	assert_true(ipc_socket_path(buf, sizeof(buf)));
	/* root listens on the system path whatever its runtime dir */
	assert_string_equal(buf, geteuid() == 0
	                             ? "/run/baton/batond.sock"
	                             : "/run/user/1000/baton/batond.sock");

	unsetenv("XDG_RUNTIME_DIR");
	assert_true(ipc_socket_path(buf, sizeof(buf)));
	assert_string_equal(buf, "/run/baton/batond.sock");

	/* Too small a buffer is refused, not truncated silently. */
	assert_false(ipc_socket_path(buf, 10));
	setenv("BATON_SOCKET", "", 1);
	assert_true(ipc_socket_path(buf, sizeof(buf)));
	assert_string_equal(buf, "/run/baton/batond.sock");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_precedence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
