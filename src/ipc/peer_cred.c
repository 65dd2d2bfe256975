#include "ipc/peer_cred.h"

#include <sys/socket.h>
#include <unistd.h>

bool ipc_peer_uid(int fd, uid_t *uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    len != sizeof(cred))
		return false;
	*uid = cred.uid;
	return true;
}

bool ipc_daemon_uid_trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid() || uid == getuid();
}
