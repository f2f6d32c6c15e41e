/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netns.c - create or join the guest namespace, make the tap, pass it back */

/**
 * DOC: Theory of Operation
 *
 * The tap must be created inside the guest namespace: /dev/net/tun binds a
 * file to the network namespace its opener is in at open() time, and
 * TUNSETIFF creates the device there. slipway itself stays in the host
 * namespace, so a helper child does the work:
 *
 * - create mode: the child unshares a user namespace (optional, rootless)
 *   and a network namespace, creates and configures the tap, and sends the
 *   tap fds back. It then waits on the socketpair and becomes the command
 *   (execvp) once netns_start_cmd() writes one byte. If the socketpair reads
 *   EOF instead (slipway exited or gave up), it exits. The namespace lives as
 *   long as the command and its children do.
 * - join mode: the child setns()es into an existing namespace, creates and
 *   configures the tap, sends the fds back and exits; slipway reaps it.
 *
 * The child sends exactly one &struct netns_msg over a SOCK_SEQPACKET
 * socketpair: either the tap fds (SCM_RIGHTS) and the MAC address, or an
 * errno and a message saying what to do, which the parent logs. The child
 * never logs before that message is sent.
 *
 * Limits: the child uses a few functions that are not async-signal-safe
 * (snprintf, if_nametoindex), so netns_setup() must run before slipway
 * starts other threads.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/if_tun.h>
#include <net/if_arp.h>

#include "os/netns.h"
#include "os/nl.h"
#include "os/nsh.h"
#include "util/log.h"
#include "util/util.h"

#define NETNS_TAP_TXQLEN 10000

#define NETNS_TUN_PATH "/dev/net/tun"
#define NETNS_RUN_DIR "/run/netns/"
#define NETNS_MSG_TEXT_LEN 256

/**
 * struct netns_msg - the helper's single report to the parent
 * @err:	0: @nfds tap fds are attached (SCM_RIGHTS), else positive errno
 * @nfds:	number of attached tap fds
 * @mac:	MAC address of the tap
 * @text:	NUL-terminated message for the user when @err is not 0
 */
struct netns_msg {
	int32_t err;
	uint32_t nfds;
	uint8_t mac[6];
	char text[NETNS_MSG_TEXT_LEN];
};

_Static_assert(NETNS_MAX_QUEUES <= NSH_MAX_FDS,
	       "nsh_fds_send() and nsh_fds_recv() carry the tap fds");

/**
 * netns_child_fail() - report an error to the parent and exit the helper
 * @sock:	socket to the parent
 * @e:		positive errno
 * @fmt:	printf format of a message that says what to do
 *
 * Context: helper child only.
 * #syscalls:setup sendto exit_group
 */
static _Noreturn void netns_child_fail(int sock, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static _Noreturn void netns_child_fail(int sock, int e, const char *fmt, ...)
{
	struct netns_msg m;
	va_list ap;

	memset(&m, 0, sizeof(m));
	m.err = e > 0 ? e : EIO;

	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);

	/* If this fails, the parent sees EOF and reports our exit status */
	send(sock, &m, sizeof(m), MSG_NOSIGNAL);
	_exit(1);
}

/**
 * netns_child_signals() - give the helper default signal handling
 *
 * The parent's ignored signals (SIGPIPE, typically) and blocked mask would
 * otherwise survive execve() into the command, and a blocked SIGTERM would
 * defeat PR_SET_PDEATHSIG.
 *
 * Context: helper child only, right after fork()
 * #syscalls:setup rt_sigaction rt_sigprocmask
 */
static void netns_child_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);

	/* Fails, harmlessly, for SIGKILL, SIGSTOP and libc-reserved signals */
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/**
 * netns_write_file() - write a short string to a file, in one write()
 * @path:	file to write (a /proc file)
 * @text:	NUL-terminated string
 *
 * #syscalls:setup openat write close
 * Return: 0, or negative errno
 */
static int netns_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	n = write(fd, text, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;

	close(fd);
	return ret;
}

/**
 * netns_child_map() - map one ID of ours to root in the new user namespace
 * @sock:	socket to the parent
 * @file:	"/proc/self/uid_map" or "/proc/self/gid_map"
 * @what:	"user" or "group", for the message
 * @id:		our effective ID outside
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup openat write close
 */
static void netns_child_map(int sock, const char *file, const char *what,
			    unsigned id)
{
	char map[64];
	int ret;

	snprintf(map, sizeof(map), "0 %u 1", id);
	ret = netns_write_file(file, map);
	if (ret)
		netns_child_fail(sock, -ret,
				 "cannot map %s %u to root in the new user "
				 "namespace: %s",
				 what, id, strerror(-ret));
}

/**
 * netns_child_userns() - enter a new user namespace mapping us to root
 * @sock:	socket to the parent, for errors
 * @uid:	our effective user ID outside, mapped to 0 inside
 * @gid:	our effective group ID outside, mapped to 0 inside
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup unshare openat write close
 */
static void netns_child_userns(int sock, uid_t uid, gid_t gid)
{
	int ret;

	if (unshare(CLONE_NEWUSER)) {
		int e = errno;

		if (e == EPERM)
			netns_child_fail(
				sock, e,
				"cannot create a user namespace (unprivileged "
				"user namespaces disabled?): run as root or "
				"enable them (sysctl "
				"user.max_user_namespaces)");
		if (e == ENOSPC || e == EUSERS)
			netns_child_fail(sock, e,
					 "cannot create a user namespace: "
					 "limit reached; raise it with sysctl "
					 "user.max_user_namespaces");
		netns_child_fail(sock, e, "cannot create a user namespace: %s",
				 strerror(e));
	}

	/* Unprivileged writers may only map the gid after denying setgroups */
	ret = netns_write_file("/proc/self/setgroups", "deny");
	if (ret && ret != -ENOENT)
		netns_child_fail(sock, -ret,
				 "cannot write /proc/self/setgroups: %s",
				 strerror(-ret));

	netns_child_map(sock, "/proc/self/uid_map", "user", (unsigned)uid);
	netns_child_map(sock, "/proc/self/gid_map", "group", (unsigned)gid);
}

/**
 * netns_child_newnet() - enter a new network namespace
 * @sock:	socket to the parent, for errors
 * @userns:	whether we are in our own user namespace
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup unshare
 */
static void netns_child_newnet(int sock, bool userns)
{
	int e;

	if (!unshare(CLONE_NEWNET))
		return;

	e = errno;
	if (e == EPERM && !userns)
		netns_child_fail(sock, e,
				 "cannot create a network namespace: "
				 "permission denied; run as root, or create a "
				 "user namespace too (rootless mode)");
	if (e == ENOSPC)
		netns_child_fail(
			sock, e,
			"cannot create a network namespace: limit reached; "
			"raise it with sysctl user.max_net_namespaces");
	netns_child_fail(sock, e, "cannot create a network namespace: %s",
			 strerror(e));
}

/**
 * netns_child_resolv() - give the command its own /etc/resolv.conf
 * @text:	contents
 *
 * In a new mount namespace with private propagation (nothing reaches the
 * host's mounts), a temporary file is bind-mounted over /etc/resolv.conf
 * (over its target, if it is a symlink) and unlinked at once: the mount
 * keeps it alive. Failing is not fatal: the command then sees the host's
 * file, and a warning says so.
 *
 * #syscalls:setup unshare mount openat write close unlink
 */
static void netns_child_resolv(const char *text)
{
	char tmp[] = "/tmp/slipway-resolv-XXXXXX";
	size_t len = strlen(text);
	int fd;

	if (access("/etc/resolv.conf", F_OK))
		return;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		fprintf(stderr,
			"slipway: warning: no mount namespace (%s): the "
			"command keeps the host's /etc/resolv.conf\n",
			strerror(errno));
		return;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (write(fd, text, len) != (ssize_t)len || fchmod(fd, 0644)) {
		close(fd);
		unlink(tmp);
		goto fail;
	}
	close(fd);
	if (mount(tmp, "/etc/resolv.conf", NULL, MS_BIND, NULL)) {
		unlink(tmp);
		goto fail;
	}
	unlink(tmp);
	return;
fail:
	fprintf(stderr,
		"slipway: warning: cannot replace /etc/resolv.conf for the "
		"command (%s): it keeps the host's\n",
		strerror(errno));
}

/**
 * netns_child_join_user() - enter the user namespace that owns the network
 * namespace we are about to join (slirp4netns's --userns-path, or the
 * target process's: an unprivileged caller has no other way in)
 * @sock:	socket to the parent, for errors
 * @path:	user namespace file (/proc/PID/ns/user, ...)
 *
 * Nothing is done when @path is our own user namespace (setns() would
 * fail with EINVAL). The helper is single-threaded, as setns() requires.
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup openat fstat stat setns close
 */
static void netns_child_join_user(int sock, const char *path)
{
	struct stat a, b;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		netns_child_fail(sock, e, "cannot open user namespace %s: %s",
				 path, strerror(e));
	}
	if (!fstat(fd, &a) && !stat("/proc/self/ns/user", &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		close(fd);
		return;
	}
	if (setns(fd, CLONE_NEWUSER)) {
		e = errno;
		netns_child_fail(
			sock, e,
			"cannot join user namespace %s: %s (it must be owned "
			"by our user, or we need CAP_SYS_ADMIN)",
			path, strerror(e));
	}
	close(fd);
}

/**
 * netns_child_join() - enter an existing network namespace
 * @sock:	socket to the parent, for errors
 * @path:	namespace file (/run/netns/NAME, /proc/PID/ns/net, ...)
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup openat setns close
 */
static void netns_child_join(int sock, const char *path)
{
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT)
			netns_child_fail(sock, e,
					 "network namespace %s does not exist: "
					 "create it (ip netns add NAME) or "
					 "check the name or path",
					 path);
		if (e == EACCES || e == EPERM)
			netns_child_fail(
				sock, e,
				"cannot open network namespace %s: permission "
				"denied; joining a namespace needs root",
				path);
		netns_child_fail(sock, e,
				 "cannot open network namespace %s: %s", path,
				 strerror(e));
	}

	if (setns(fd, CLONE_NEWNET)) {
		e = errno;
		if (e == EPERM)
			netns_child_fail(
				sock, e,
				"cannot join network namespace %s: joining a "
				"namespace needs root (CAP_SYS_ADMIN)",
				path);
		if (e == EINVAL)
			netns_child_fail(sock, e,
					 "cannot join %s: not a network "
					 "namespace (expected /run/netns/NAME "
					 "or /proc/PID/ns/net)",
					 path);
		netns_child_fail(sock, e,
				 "cannot join network namespace %s: %s", path,
				 strerror(e));
	}

	close(fd);
}

/**
 * netns_child_tap_open() - open /dev/net/tun, explaining failures
 * @sock:	socket to the parent, for errors
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup openat
 * Return: non-blocking, close-on-exec descriptor
 */
static int netns_child_tap_open(int sock)
{
	int fd, e;

	fd = open(NETNS_TUN_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		return fd;

	e = errno;
	if (e == EACCES || e == EPERM)
		netns_child_fail(sock, e,
				 "cannot open /dev/net/tun: permission denied; "
				 "it must be mode 0666 (the distribution "
				 "default) for rootless use, or run as root");
	if (e == ENOENT || e == ENODEV || e == ENXIO)
		netns_child_fail(sock, e,
				 "cannot open /dev/net/tun: %s; load the tun "
				 "module (modprobe tun) or create the node "
				 "(mknod /dev/net/tun c 10 200)",
				 strerror(e));
	netns_child_fail(sock, e, "cannot open /dev/net/tun: %s", strerror(e));
}

/**
 * netns_child_tap() - create the tap with all its queues in this namespace
 * @sock:	socket to the parent, for errors
 * @c:		configuration
 * @fds:	filled with @c->queues non-blocking tap descriptors
 * @mac:	filled with the tap's MAC address
 * @name:	filled with the tap's name (as chosen by the kernel if
 *		@c->ifname is NULL or empty), IFNAMSIZ bytes
 * @ifindex:	filled with the tap's interface index
 *
 * The virtio-net header size and offloads are device-wide, so they are set
 * once, on the first queue.
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup openat ioctl socket bind setsockopt sendto recvfrom close
 */
static void netns_child_tap(int sock, const struct netns_conf *c, int *fds,
			    uint8_t *mac, char *name, unsigned *ifindex)
{
	int vnet_hdr_len = c->vnet_hdr_len;
	struct ifreq ifr;
	unsigned i;
	int e;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (c->queues > 1)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	if (c->ifname)
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", c->ifname);

	for (i = 0; i < c->queues; i++) {
		fds[i] = netns_child_tap_open(sock);

		/* On success the kernel writes the device name back to
		 * ifr_name, so later queues attach to the same device
		 */
		if (!ioctl(fds[i], TUNSETIFF, &ifr))
			continue;

		e = errno;
		if (e == EPERM)
			netns_child_fail(
				sock, e,
				"cannot create tap %s: permission denied; it "
				"needs CAP_NET_ADMIN in the namespace (run as "
				"root or use a user namespace)",
				ifr.ifr_name);
		if (e == EBUSY)
			netns_child_fail(sock, e,
					 "cannot create tap %s: a device with "
					 "this name already exists and is in "
					 "use; choose another name",
					 ifr.ifr_name);
		if (e == EINVAL)
			netns_child_fail(
				sock, e,
				"cannot create tap %s: invalid argument (bad "
				"name, or a device with this name exists with "
				"other flags or queue settings)",
				ifr.ifr_name);
		netns_child_fail(sock, e, "cannot create tap %s: %s",
				 ifr.ifr_name, strerror(e));
	}
	memcpy(name, ifr.ifr_name, IFNAMSIZ);
	name[IFNAMSIZ - 1] = '\0';

	if (vnet_hdr_len && ioctl(fds[0], TUNSETVNETHDRSZ, &vnet_hdr_len)) {
		e = errno;
		netns_child_fail(
			sock, e,
			"cannot set the virtio-net header size of %s to %d: %s "
			"(use 10, or 12 with VIRTIO_NET_F_MRG_RXBUF or "
			"VIRTIO_F_VERSION_1)",
			name, vnet_hdr_len, strerror(e));
	}

	if (c->offloads &&
	    ioctl(fds[0], TUNSETOFFLOAD, (unsigned long)c->offloads)) {
		e = errno;
		netns_child_fail(
			sock, e,
			"cannot enable offloads 0x%x on %s: %s (TSO and USO "
			"need TUN_F_CSUM, and old kernels lack some flags)",
			c->offloads, name, strerror(e));
	}

	if (c->mac_set) {
		ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
		memcpy(ifr.ifr_hwaddr.sa_data, c->mac, 6);
		if (ioctl(fds[0], SIOCSIFHWADDR, &ifr)) {
			e = errno;
			netns_child_fail(sock, e,
					 "cannot set the MAC address of %s: %s",
					 name, strerror(e));
		}
	}
	if (ioctl(fds[0], SIOCGIFHWADDR, &ifr)) {
		e = errno;
		netns_child_fail(sock, e,
				 "cannot read the MAC address of %s: %s", name,
				 strerror(e));
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);

	*ifindex = if_nametoindex(name);
	if (!*ifindex) {
		e = errno;
		netns_child_fail(sock, e, "cannot find the index of %s: %s",
				 name, strerror(e));
	}

	/* The guest's frames to us wait in this queue while slipway writes
	 * to the guest; at the default 1000, 16 flows toward the guest
	 * overflowed it (the guest's ACKs dropped, tx_dropped counted), at
	 * 10000 never (docs/experiments.md X5). Over netlink, not with the
	 * SIOCSIFTXQLEN ioctl: that one wants CAP_NET_ADMIN in the initial
	 * user namespace, so rootless it always failed. Not fatal. */
	{
		int nl = nl_open(), ret = nl;

		if (nl >= 0)
			ret = nl_link_txqlen(nl, *ifindex, NETNS_TAP_TXQLEN);
		if (ret)
			fprintf(stderr,
				"slipway: warning: cannot set the queue length "
				"of %s: %s\n",
				name, strerror(-ret));
		if (nl >= 0)
			close(nl);
	}
}

/**
 * netns_child_sysctl6() - switch off DAD and SLAAC on the tap
 * @name:	tap name
 *
 * Our configuration is the tap's only one: its addresses need no
 * duplicate address detection (nothing else is on the link; a test must
 * never race it), and the prefix in our router advertisements must not
 * add a second, SLAAC-made address beside the configured one. Done before
 * the link comes up, so the link-local address is not tentative either.
 * Not fatal: the configured address has IFA_F_NODAD anyway.
 *
 * Context: helper child only, in the guest's network namespace (the net
 * sysctls under /proc/sys are the caller's namespace's)
 * #syscalls:setup openat write close
 */
static void netns_child_sysctl6(const char *name)
{
	static const char *const keys[] = { "accept_dad", "autoconf" };
	char path[96];
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		int ret;

		snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/%s",
			 name, keys[i]);
		ret = netns_write_file(path, "0");
		/* no such file: no IPv6, which configure6 reports */
		if (ret && ret != -ENOENT)
			fprintf(stderr, "slipway: warning: cannot set %s: %s\n",
				path, strerror(-ret));
	}
}

/**
 * netns_child_configure6() - add the guest's IPv6 address and default route
 * @sock:	socket to the parent, for errors
 * @c:		configuration: @addr6, @gw6
 * @nl:		netlink socket
 * @name:	tap name, for messages
 * @ifindex:	tap interface index
 *
 * Context: helper child only; does not return on errors other than IPv6
 * missing or disabled, which are warned about
 * #syscalls:setup sendto recvfrom
 */
static void netns_child_configure6(int sock, const struct netns_conf *c, int nl,
				   const char *name, unsigned ifindex)
{
	char addr[INET6_ADDRSTRLEN], gw[INET6_ADDRSTRLEN];
	uint8_t plen = c->prefix6_len ? c->prefix6_len : 64;
	int ret;

	inet_ntop(AF_INET6, c->addr6, addr, sizeof(addr));
	inet_ntop(AF_INET6, c->gw6, gw, sizeof(gw));
	ret = nl_addr6_add(nl, ifindex, c->addr6, plen);
	if (ret == -EAFNOSUPPORT || ret == -EACCES) {
		fprintf(stderr,
			"slipway: warning: no IPv6 in the namespace (%s): IPv4 "
			"only; --no-ipv6 silences this\n",
			strerror(-ret));
		return;
	}
	if (ret)
		netns_child_fail(sock, -ret,
				 "cannot add address %s/%u to %s: %s", addr,
				 plen, name, strerror(-ret));
	ret = nl_route6_default(nl, ifindex, c->gw6);
	if (ret == -EEXIST && c->route_beside) {
		/* slirp4netns adds no IPv6 route: the namespace's stays */
		fprintf(stderr,
			"slipway: warning: the namespace has an IPv6 default "
			"route already: kept, none added via %s\n",
			gw);
		return;
	}
	if (ret == -EEXIST)
		netns_child_fail(sock, -ret,
				 "cannot add IPv6 default route via %s: the "
				 "namespace already has one; remove it, use "
				 "--no-ipv6, or do not configure the tap",
				 gw);
	if (ret)
		netns_child_fail(
			sock, -ret,
			"cannot add IPv6 default route via %s dev %s: %s", gw,
			name, strerror(-ret));
}

/**
 * netns_child_configure() - bring lo and the tap up, add address and route
 * @sock:	socket to the parent, for errors
 * @c:		configuration: @mtu, @addr_be (skipped if 0), @prefix_len,
 *		@gw_be (no default route if 0), @ipv6, @addr6, @gw6
 *
 * IPv6 that the kernel lacks or has disabled (EAFNOSUPPORT, EACCES) is
 * a warning, not a failure: IPv4 still works.
 * @name:	tap name, for messages
 * @ifindex:	tap interface index
 *
 * Context: helper child only; does not return on error
 * #syscalls:setup socket bind setsockopt sendto recvfrom ioctl close
 */
static void netns_child_configure(int sock, const struct netns_conf *c,
				  const char *name, unsigned ifindex)
{
	char addr[INET_ADDRSTRLEN], gw[INET_ADDRSTRLEN];
	unsigned lo;
	int nl, ret;

	inet_ntop(AF_INET, &c->addr_be, addr, sizeof(addr));
	inet_ntop(AF_INET, &c->gw_be, gw, sizeof(gw));

	nl = nl_open();
	if (nl < 0)
		netns_child_fail(sock, -nl, "cannot open a netlink socket: %s",
				 strerror(-nl));

	lo = if_nametoindex("lo");
	if (!lo)
		netns_child_fail(sock, errno,
				 "cannot find the loopback interface: %s",
				 strerror(errno));
	ret = nl_link_up(nl, lo, 0);
	if (ret)
		netns_child_fail(sock, -ret, "cannot bring up lo: %s",
				 strerror(-ret));

	if (c->ipv6)
		netns_child_sysctl6(name);

	ret = nl_link_up(nl, ifindex, c->mtu);
	if (ret == -EINVAL && c->mtu)
		netns_child_fail(sock, -ret,
				 "cannot set MTU %u on %s: invalid argument; a "
				 "tap accepts 68 to 65521",
				 c->mtu, name);
	if (ret)
		netns_child_fail(sock, -ret, "cannot bring up %s: %s", name,
				 strerror(-ret));

	if (c->addr_be) {
		ret = nl_addr4_add(nl, ifindex, c->addr_be, c->prefix_len);
		if (ret)
			netns_child_fail(sock, -ret,
					 "cannot add address %s/%u to %s: %s",
					 addr, c->prefix_len, name,
					 strerror(-ret));
	}

	if (c->gw_be) {
		ret = nl_route4_default(nl, ifindex, c->gw_be, c->route_beside);
		if (ret == -EEXIST)
			netns_child_fail(sock, -ret,
					 "cannot add default route via %s: the "
					 "namespace already has one; remove "
					 "it, or do not configure the tap",
					 gw);
		if (ret == -ENETUNREACH)
			netns_child_fail(sock, -ret,
					 "cannot add default route: gateway %s "
					 "is not in %s/%u; fix the address, "
					 "prefix length or gateway",
					 gw, addr, c->prefix_len);
		if (ret)
			netns_child_fail(
				sock, -ret,
				"cannot add default route via %s dev %s: %s",
				gw, name, strerror(-ret));
	}

	if (c->ipv6)
		netns_child_configure6(sock, c, nl, name, ifindex);

	close(nl);
}

/**
 * netns_child_send() - pass the tap fds and MAC address to the parent
 * @sock:	socket to the parent
 * @fds:	tap descriptors
 * @nfds:	number of @fds
 * @mac:	MAC address of the tap
 *
 * Context: helper child only; exits if the parent cannot be reached
 * #syscalls:setup sendmsg exit_group
 */
static void netns_child_send(int sock, const int *fds, unsigned nfds,
			     const uint8_t *mac)
{
	struct netns_msg m;

	memset(&m, 0, sizeof(m));
	m.nfds = nfds;
	memcpy(m.mac, mac, sizeof(m.mac));

	ASSERT(nfds >= 1 && nfds <= NETNS_MAX_QUEUES);

	/* Nobody to tell: the parent sees EOF and reports our exit status */
	if (nsh_fds_send(sock, &m, sizeof(m), fds, nfds) != (ssize_t)sizeof(m))
		_exit(1);
}

/**
 * netns_child_exec() - wait for netns_start_cmd(), then run the command
 * @sock:	socket to the parent (close-on-exec)
 * @c:		configuration: @cmd
 * @ppid:	PID of the parent, to detect that it exited already
 *
 * The command gets SIGTERM when slipway exits (PR_SET_PDEATHSIG survives
 * execve() of a binary that is not set-user-ID).
 *
 * Context: helper child only; never returns
 * #syscalls:setup prctl getppid recvfrom close execve exit_group
 */
static _Noreturn void netns_child_exec(int sock, const struct netns_conf *c,
				       pid_t ppid)
{
	char *sh_argv[2] = { NULL, NULL };
	char *const *argv;
	ssize_t n;
	char go;

	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		_exit(1);
	/* The parent may have exited before prctl(): we would never know */
	if (getppid() != ppid)
		_exit(1);

	do
		n = recv(sock, &go, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		_exit(1); /* EOF: slipway exited or gave up */
	close(sock);

	if (c->cmd && c->cmd[0]) {
		argv = c->cmd;
	} else {
		sh_argv[0] = getenv("SHELL");
		if (!sh_argv[0] || !*sh_argv[0])
			sh_argv[0] = "/bin/sh";
		argv = sh_argv;
	}

	execvp(argv[0], argv);

	err_perror("cannot run '%s' in the new namespace "
		   "(check the command name and $PATH)",
		   argv[0]);
	_exit(127);
}

/**
 * netns_child() - the helper: enter the namespace, make the tap, report
 * @c:		configuration
 * @path:	namespace to join, NULL to create one
 * @sock:	socket to the parent (close-on-exec)
 * @ppid:	PID of the parent
 * @uid:	effective user ID of the parent, mapped to root
 * @gid:	effective group ID of the parent, mapped to root
 * @nsh_sock:	the namespace socket helper's end of its socketpair, or -1
 *
 * Context: helper child only, right after fork(); never returns
 * #syscalls:setup close exit_group
 */
static _Noreturn void netns_child(const struct netns_conf *c, const char *path,
				  int sock, pid_t ppid, uid_t uid, gid_t gid,
				  int nsh_sock)
{
	char name[IFNAMSIZ];
	int fds[NETNS_MAX_QUEUES];
	uint8_t mac[6];
	unsigned ifindex, i;

	netns_child_signals();

	if (path) {
		if (c->userns_path)
			netns_child_join_user(sock, c->userns_path);
		netns_child_join(sock, path);
	} else {
		if (c->userns)
			netns_child_userns(sock, uid, gid);
		netns_child_newnet(sock, c->userns);
		if (c->resolv_text)
			netns_child_resolv(c->resolv_text);
	}

	netns_child_tap(sock, c, fds, mac, name, &ifindex);
	if (c->configure)
		netns_child_configure(sock, c, name, ifindex);

	netns_child_send(sock, fds, c->queues, mac);

	/* The parent holds its own references now */
	for (i = 0; i < c->queues; i++)
		close(fds[i]);

	if (nsh_sock >= 0) {
		nsh_spawn(nsh_sock);
		close(nsh_sock);
	}

	if (path)
		_exit(0);

	netns_child_exec(sock, c, ppid);
}

/**
 * netns_reap() - wait for a child to exit
 * @pid:	child PID
 *
 * #syscalls:setup wait4
 * Return: wait status (>= 0), or negative errno (-ECHILD if SIGCHLD is
 * ignored and the child was reaped automatically)
 */
static int netns_reap(pid_t pid)
{
	int status;
	pid_t r;

	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);

	return r < 0 ? -errno : status;
}

/**
 * netns_recv() - receive the helper's report: tap fds and MAC, or an error
 * @sock:	socket to the helper
 * @want:	number of tap fds expected
 * @s:		on success, @tap_fds, @nqueues and @mac are filled
 *
 * The fds arrive close-on-exec (MSG_CMSG_CLOEXEC) and are made non-blocking
 * here too, in case the helper did not.
 *
 * #syscalls:setup recvmsg fcntl close
 * Return: 0; -ECONNRESET if the helper exited without a report (not
 * logged: the caller reports the exit status); other negative errno, logged
 */
static int netns_recv(int sock, unsigned want, struct netns_state *s)
{
	struct netns_msg m;
	unsigned n, i;
	ssize_t len;
	int ret, mflags;

	len = nsh_fds_recv(sock, &m, sizeof(m), MSG_CMSG_CLOEXEC, s->tap_fds,
			   NETNS_MAX_QUEUES, &n, &mflags);
	if (len < 0) {
		errno = (int)-len;
		err_perror("cannot receive the tap from the namespace helper");
		return (int)len;
	}
	if (len == 0)
		return -ECONNRESET;

	if ((size_t)len != sizeof(m)) {
		err("namespace helper sent a malformed report (%zd bytes)",
		    len);
		ret = -EPROTO;
		goto out_close;
	}

	if (m.err) {
		m.text[sizeof(m.text) - 1] = '\0';
		err("%s", m.text);
		ret = m.err > 0 ? -m.err : -EIO;
		goto out_close;
	}

	if ((mflags & MSG_CTRUNC) || n != want || m.nfds != want) {
		err("namespace helper passed %u tap descriptors, expected %u",
		    n, want);
		ret = -EPROTO;
		goto out_close;
	}

	for (i = 0; i < n; i++) {
		int fd = s->tap_fds[i], fl = fcntl(fd, F_GETFL);

		if (fl < 0 || (!(fl & O_NONBLOCK) &&
			       fcntl(fd, F_SETFL, fl | O_NONBLOCK))) {
			ret = -errno;
			err_perror("cannot make the tap non-blocking");
			goto out_close;
		}
	}

	memcpy(s->mac, m.mac, sizeof(s->mac));
	s->nqueues = n;
	return 0;

out_close:
	for (i = 0; i < n; i++) {
		close(s->tap_fds[i]);
		s->tap_fds[i] = -1;
	}
	return ret;
}

/**
 * netns_log_exit() - log how the helper ended when it sent no report
 * @status:	wait status, or negative errno from netns_reap()
 */
static void netns_log_exit(int status)
{
	if (status < 0)
		err("namespace helper exited without reporting");
	else if (WIFSIGNALED(status))
		err("namespace helper killed by signal %d before passing tap",
		    WTERMSIG(status));
	else
		err("namespace helper exited (status %d) before passing tap",
		    WEXITSTATUS(status));
}

/**
 * netns_path_pid() - find the PID in a "/proc/PID/ns/net" path
 * @path:	namespace path
 *
 * Return: PID, or -1 if @path has another form
 */
static pid_t netns_path_pid(const char *path)
{
	const char *p;
	char *end;
	long v;

	if (strncmp(path, "/proc/", strlen("/proc/")))
		return -1;
	p = path + strlen("/proc/");
	if (*p < '1' || *p > '9')
		return -1;

	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v > INT_MAX || strcmp(end, "/ns/net"))
		return -1;

	return (pid_t)v;
}

/**
 * netns_check_conf() - validate the configuration before forking
 * @c:		configuration
 *
 * Return: 0, or -EINVAL (logged)
 */
static int netns_check_conf(const struct netns_conf *c)
{
	if (!c->queues || c->queues > NETNS_MAX_QUEUES) {
		err("invalid number of tap queues %u: use 1 to %d", c->queues,
		    NETNS_MAX_QUEUES);
		return -EINVAL;
	}

	if (c->ifname && strlen(c->ifname) >= IFNAMSIZ) {
		err("tap name '%s' is too long: at most %d characters",
		    c->ifname, IFNAMSIZ - 1);
		return -EINVAL;
	}

	if (c->configure && c->prefix_len > 32) {
		err("invalid IPv4 prefix length %u: use 0 to 32",
		    c->prefix_len);
		return -EINVAL;
	}

	if (c->netns_path && (!*c->netns_path || !strcmp(c->netns_path, ".") ||
			      !strcmp(c->netns_path, ".."))) {
		err("invalid network namespace name '%s'", c->netns_path);
		return -EINVAL;
	}

	return 0;
}

/**
 * netns_setup() - create or join the namespace, make and configure the tap
 * @c:	configuration
 * @s:	filled on success; on failure: fds and PIDs -1, @nqueues 0
 *
 * Context: start-up, before other threads exist (the child runs code that
 * is not async-signal-safe). PR_SET_PDEATHSIG of the command's process
 * fires when the calling *thread* exits, so call this from the main thread.
 * Ownership: the caller owns @s->tap_fds, @s->nsh_fd and, in create mode,
 * @s->ctl_fd (closing it without netns_start_cmd() makes the waiting child
 * exit) and must reap @s->cmd_pid.
 *
 * #syscalls:setup socketpair clone rt_sigprocmask recvmsg fcntl wait4 close
 * Return: 0 on success, negative errno on failure (message already logged)
 */
int netns_setup(const struct netns_conf *c, struct netns_state *s)
{
	char path_buf[sizeof(NETNS_RUN_DIR) + NAME_MAX];
	const char *path = c->netns_path;
	sigset_t all, old;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t ppid = getpid();
	int sv[2], hv[2] = { -1, -1 }, ret, status;
	unsigned i;
	pid_t pid;

	for (i = 0; i < NETNS_MAX_QUEUES; i++)
		s->tap_fds[i] = -1;
	s->nqueues = 0;
	memset(s->mac, 0, sizeof(s->mac));
	s->cmd_pid = -1;
	s->watch_pid = -1;
	s->ctl_fd = -1;
	s->nsh_fd = -1;

	ret = netns_check_conf(c);
	if (ret)
		return ret;

	if (path && !strchr(path, '/')) {
		if (snprintf(path_buf, sizeof(path_buf), NETNS_RUN_DIR "%s",
			     path) >= (int)sizeof(path_buf)) {
			err("network namespace name '%s' is too long", path);
			return -ENAMETOOLONG;
		}
		path = path_buf;
	}
	if (path && c->userns && !c->userns_path)
		warn("ignoring the user namespace option: joining %s "
		     "needs root",
		     path);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		err_perror("cannot create a socket pair for the netns helper");
		return ret;
	}
	if (c->nsh &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, hv)) {
		warn_perror("no socket pair for the namespace socket helper: "
			    "published ports are served through the tap only");
		hv[0] = hv[1] = -1;
	}

	/* No handler of ours may run in the child before it resets them */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);

	pid = fork();
	if (pid < 0)
		ret = -errno;
	if (pid == 0) {
		close(sv[0]);
		if (hv[0] >= 0)
			close(hv[0]);
		netns_child(c, path, sv[1], ppid, uid, gid, hv[1]);
	}

	sigprocmask(SIG_SETMASK, &old, NULL);
	close(sv[1]);
	if (hv[1] >= 0)
		close(hv[1]);

	if (pid < 0) {
		errno = -ret;
		err_perror("cannot fork the namespace helper");
		goto out_close;
	}

	ret = netns_recv(sv[0], c->queues, s);

	if (path) {
		/* The helper exits after passing the fds, or on failure */
		close(sv[0]);
		status = netns_reap(pid);
		if (ret == -ECONNRESET)
			netns_log_exit(status);
		if (ret)
			goto out_nsh;

		s->watch_pid = netns_path_pid(path);
		s->nsh_fd = hv[0];
		return 0;
	}

	if (ret) {
		/* EOF on the socket makes a helper waiting to exec exit */
		close(sv[0]);
		status = netns_reap(pid);
		if (ret == -ECONNRESET)
			netns_log_exit(status);
		goto out_nsh;
	}

	s->cmd_pid = pid;
	s->ctl_fd = sv[0];
	s->nsh_fd = hv[0];
	return 0;

out_close:
	close(sv[0]);
out_nsh:
	if (hv[0] >= 0)
		close(hv[0]);
	return ret;
}

/**
 * netns_start_cmd() - let the waiting child exec the command
 * @s:	state from netns_setup(); @ctl_fd is closed and set to -1
 *
 * #syscalls sendto close
 * Return: 0, -EINVAL if no child is waiting (joined namespace, or already
 * started), or negative errno (-EPIPE: the child is gone)
 */
int netns_start_cmd(struct netns_state *s)
{
	const char go = 1;
	ssize_t n;
	int ret = 0;

	if (s->ctl_fd < 0)
		return -EINVAL;

	do
		n = send(s->ctl_fd, &go, 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = -errno;
		err_perror("cannot start the command: its process is gone");
	}

	close(s->ctl_fd);
	s->ctl_fd = -1;
	return ret;
}
