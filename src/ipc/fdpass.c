#include "ipc/fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

ssize_t ipc_send_with_fd(int sock, const void *buf, size_t len, int fd)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ssize_t n;
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

ssize_t ipc_recv_with_fds(int sock, void *buf, size_t len,
                          int fds[IPC_RECV_MAX_FDS], size_t *nfds)
{
	*nfds = 0;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	/* Room for a full SCM_RIGHTS list and credentials besides, so that
	 * the kernel never truncates (and so never drops a descriptor in
	 * this thread). */
	union {
		char buf[CMSG_SPACE(sizeof(int) * IPC_RECV_MAX_FDS) +
		         CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = ctl.buf,
	    .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
	     c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t k = 0; k < count && *nfds < IPC_RECV_MAX_FDS; k++)
			memcpy(&fds[(*nfds)++], CMSG_DATA(c) + k * sizeof(int),
			       sizeof(int));
	}
	if (msg.msg_flags & MSG_CTRUNC)
		return -EPROTO;
	return n;
}
