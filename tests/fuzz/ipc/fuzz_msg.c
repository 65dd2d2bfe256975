/* libFuzzer: the control-socket input path of batond. Arbitrary bytes are
 * cut into receive-sized chunks (the first byte picks the chunk size), fed
 * through the line framer, and every complete line goes to the message
 * parser, exactly as conn.c does. Also parses the raw input as one line. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ipc/linebuf.h"
#include "ipc/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(const char *line, size_t len)
{
	struct ipc_msg m;
	struct ipc_msg_error e;
	if (ipc_msg_parse(line, len, &m, &e)) {
		/* Whatever parsed must be self-consistent. */
		if (m.type == IPC_MSG_HELLO &&
		    m.hello.role == IPC_ROLE_TENANT &&
		    (m.hello.name[0] == '\0' ||
		     !(m.hello.sla_fps >= 0 && m.hello.sla_fps <= IPC_FPS_MAX)))
			__builtin_trap();
		/* a set changes something, and only within range: a cap of
		 * 0 (none) or in (0, 1], a weight in (0, IPC_BE_WEIGHT_MAX] */
		if (m.type == IPC_MSG_SET &&
		    ((!m.set.has_sla && !m.set.has_fixed && !m.set.has_cap &&
		      !m.set.has_wc && !m.set.has_weight && !m.set.has_level) ||
		     (m.set.has_cap &&
		      !(m.set.cap >= 0.0 && m.set.cap <= 1.0)) ||
		     (m.set.has_weight &&
		      !(m.set.weight > 0.0 &&
		        m.set.weight <= IPC_BE_WEIGHT_MAX))))
			__builtin_trap();
		/* rates are 0 or in [IPC_FPS_MIN, IPC_FPS_MAX] */
		double r[4] = {m.hello.sla_fps, m.hello.fixed_fps,
		               m.set.sla_fps, m.set.fixed_fps};
		if (m.type == IPC_MSG_HELLO || m.type == IPC_MSG_SET)
			for (int i = m.type == IPC_MSG_SET ? 2 : 0;
			     i < (m.type == IPC_MSG_SET ? 4 : 2); i++)
				if (r[i] != 0.0 && !(r[i] >= IPC_FPS_MIN &&
				                     r[i] <= IPC_FPS_MAX))
					__builtin_trap();
		if (m.type == IPC_MSG_SET &&
		    ((m.set.has_sla && !(m.set.sla_fps >= IPC_FPS_MIN)) ||
		     (m.set.all && !m.set.has_name) ||
		     (m.set.has_id && m.set.id == 0)))
			__builtin_trap();
		/* names come out clean: a second cleaning finds nothing */
		char name[IPC_NAME_MAX];
		const char *n = m.type == IPC_MSG_HELLO ? m.hello.name
		                : m.type == IPC_MSG_SET ? m.set.name
		                                        : "";
		memcpy(name, n, strlen(n) + 1);
		if (ipc_name_clean(name) != 0)
			__builtin_trap();
	} else if (!e.code || !e.message[0]) {
		__builtin_trap();
	} else {
		/* error text may quote the input: printable ASCII only */
		for (const char *p = e.message; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ipc_linebuf lb;
	static char line[BATON_MSG_MAX];
	if (size == 0)
		return 0;
	size_t chunk = 1 + data[0] % 200;
	data++;
	size--;
	ipc_linebuf_init(&lb);
	size_t off = 0;
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;
		size_t took = ipc_linebuf_feed(&lb, data + off, n);
		off += took;
		size_t len;
		int r;
		while ((r = ipc_linebuf_take(&lb, line, &len)) == 1) {
			if (len >= BATON_MSG_MAX || line[len] != '\0')
				__builtin_trap();
			parse(line, len);
		}
		if (r < 0)
			break; /* too long: the daemon closes the connection */
		if (took == 0)
			__builtin_trap(); /* full yet no error: impossible */
	}
	parse((const char *)data, size);
	return 0;
}
