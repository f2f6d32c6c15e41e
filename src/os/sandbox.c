/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox.c - give up what the running gateway does not need */

/**
 * DOC: Theory of Operation
 *
 * The steps, in order
 * -------------------
 *
 * Once set-up is done (namespace and tap, or the VM socket; published
 * ports bound; resolv.conf read; shard state allocated) slipway needs no
 * more privilege, no filesystem and only a few dozen system calls. The
 * sandbox takes the rest away, in this order:
 *
 * 0. PR_SET_NO_NEW_PRIVS: Landlock and seccomp need it, and nothing here
 *    is an execve(), which is all it restricts.
 * 1. Filesystem. An empty mount namespace: unshare(CLONE_NEWNS) as root,
 *    or CLONE_NEWUSER | CLONE_NEWNS (an identity-mapped user namespace)
 *    otherwise; a small read-only tmpfs becomes the root (pivot_root) and
 *    the old root is detached. Directories still read by path (@ro_dir)
 *    are bind-mounted read-only at their own paths: the gateway has none.
 *    When that cannot be done (no unprivileged user namespaces, a threaded
 *    process, or the datagram edge, which must reach its guest's socket by
 *    path), Landlock, if the kernel has it, denies every filesystem access
 *    but the same read-only directories. Files written or removed at run
 *    time (--stats-file, our socket file at exit) are reached only through
 *    directory fds opened before (O_PATH): in the mount namespace they
 *    still work; under Landlock a rule on that fd allows exactly that
 *    access.
 *
 *    resolv.conf. The DNS forwarder re-reads it when it changes, and it is
 *    replaced by rename (resolvconf, systemd-resolved, editors), so only
 *    its directory would do, and that is /etc: /etc/shadow and the host's
 *    keys with it, for a root gateway without --runas. A bind mount of the
 *    file alone, or a Landlock rule on it, names the old inode and goes
 *    stale at the first rename; an O_PATH fd of the directory would let
 *    openat() open any file in it. So the gateway keeps no path to it at
 *    all (in the mount namespace, nor under Landlock): the resolv.conf
 *    reader (resolvh.c), a helper process forked at set-up, enters this
 *    same sandbox with those directories as its @ro_dir (@who set) and
 *    sends the file's contents, at start and after each change, over a
 *    socket the gateway can only read. Only that process, which takes no
 *    input from the gateway or the guest, can read the rest of /etc.
 * 2. --runas USER[:GROUP] as root: setgroups(0), setgid, setuid. A
 *    capability to keep (step 3) is kept through the switch
 *    (PR_SET_KEEPCAPS, cleared again after it).
 * 3. Capabilities: the bounding and ambient sets are emptied before step
 *    2 (while we still have CAP_SETPCAP, which the change of user takes
 *    away), the effective, permitted and inheritable sets after it.
 *    With @keep_net_bind CAP_NET_BIND_SERVICE stays in the bounding,
 *    permitted and effective sets if we had it: in slirp4netns mode, as
 *    with slirp4netns --enable-sandbox (its API may publish ports below
 *    1024), and at a migration's destination that publishes such a port
 *    once the state came. The gateway never keeps CAP_NET_ADMIN: with
 *    --migrate-repair, TCP_REPAIR is the repair helper's
 *    (repair_helper.c), which enters this sandbox with @keep_net_admin
 *    and @no_userns (a user namespace of its own would take the
 *    capability's reach over the host's sockets away).
 * 4. seccomp (sandbox_seccomp(), once the threads exist): the allowlist
 *    built from the #syscalls lines, with SECCOMP_FILTER_FLAG_TSYNC for
 *    every thread; a call off the list, or one whose arguments its rule
 *    refuses (seccomp.c: ioctl requests, socket families, PROT_EXEC, kill
 *    only to the command), kills the process (--seccomp-log: logged by the
 *    kernel instead).
 *
 * Sanitizer builds
 * ----------------
 *
 * AddressSanitizer's leak check at exit stops the
 * threads with ptrace from a clone()d helper and reads /proc: seccomp is
 * skipped, /proc stays reachable and the process stays dumpable.
 * ThreadSanitizer runs a thread of its own from the start (no user
 * namespace then) and symbolises reports from the binary's path: seccomp
 * and the filesystem part are skipped. Each skip is logged.
 *
 * Other processes
 * ---------------
 *
 * The command started in a new namespace, and the namespace helpers, were
 * forked before: none of this applies to them. The resolv.conf reader
 * applies steps 0 to 3 to itself (no seccomp filter: its calls are not the
 * gateway's); the repair helper steps 0 to 3 too, then a filter of its own.
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/landlock.h>

#include "os/sandbox.h"
#include "os/seccomp.h"
#include "util/log.h"
#include "util/util.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SANDBOX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SANDBOX_TSAN 1
#endif
#endif
#ifndef SANDBOX_ASAN
#define SANDBOX_ASAN 0
#endif
#ifndef SANDBOX_TSAN
#define SANDBOX_TSAN 0
#endif

/* Landlock rights newer than the headers of Debian 12 (Linux 6.1) */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

/* where the empty root is built, the first that exists: hidden by it */
static const char *const sandbox_mnt[] = { "/tmp", "/mnt", "/run", "/var/tmp" };

/**
 * sandbox_write_file() - write a short string to a /proc file
 * @path:	file
 * @text:	contents
 *
 * #syscalls:setup openat write close
 * Return: 0, or -1
 */
static int sandbox_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/**
 * sandbox_userns() - an identity-mapped user namespace, for the mount
 * namespace (not root)
 *
 * #syscalls:setup unshare
 * Return: 0, or -1 with errno set
 */
static int sandbox_userns(void)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
	if (sandbox_write_file("/proc/self/uid_map", map))
		return -1;
	if (sandbox_write_file("/proc/self/setgroups", "deny"))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
	return sandbox_write_file("/proc/self/gid_map", map);
}

/**
 * sandbox_mkdirs() - create @path and its parents under the new root
 * @path:	absolute path, e.g. "/tmp/etc"
 * @skip:	length of the new root's own path ("/tmp"), which exists
 *
 * #syscalls:setup mkdir
 * Return: 0, or -1 with errno set
 */
static int sandbox_mkdirs(char *path, size_t skip)
{
	char *p;

	for (p = path + skip + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/**
 * sandbox_bind_ro() - bind-mount the directory at @fd read-only at @target
 * @fd:		O_PATH fd of the directory, opened in the new mount namespace
 * @target:	mount point in the new root
 *
 * The read-only remount keeps the flags a user namespace may not clear
 * (nosuid, nodev, noexec, atime) as statvfs() reports them.
 *
 * #syscalls:setup mount
 * Return: 0, or -1 with errno set
 */
static int sandbox_bind_ro(int fd, const char *target)
{
	unsigned long fl = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID |
			   MS_NODEV | MS_NOEXEC;
	char src[32];
	struct statvfs sv;

	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	if (mount(src, target, NULL, MS_BIND | MS_REC, NULL))
		return -1;
	if (!statvfs(target, &sv)) {
		if (sv.f_flag & ST_NOATIME)
			fl |= MS_NOATIME;
		if (sv.f_flag & ST_NODIRATIME)
			fl |= MS_NODIRATIME;
		if (sv.f_flag & ST_RELATIME)
			fl |= MS_RELATIME;
	}
	if (mount(NULL, target, NULL, fl, NULL))
		warn_perror("sandbox: %s stays writable", target);
	return 0;
}

/**
 * sandbox_mountns() - an empty, read-only root in a mount namespace of ours
 * @c:		configuration (@ro_dir kept)
 * @keep_proc:	keep /proc too (sanitizers)
 *
 * #syscalls:setup unshare mount pivot_root umount2 chdir openat close
 * Return: 0, or -1 with errno set (the process may be in a new, unchanged
 * mount namespace then; Landlock is the fallback)
 */
static int sandbox_mountns(const struct sandbox_conf *c, bool keep_proc)
{
	int fds[SANDBOX_PATHS_MAX + 1], nfd = 0, ret = -1, e;
	const char *dirs[SANDBOX_PATHS_MAX + 1];
	const char *mnt = NULL;
	char target[PATH_MAX];
	struct stat st;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(sandbox_mnt) && !mnt; i++)
		if (!stat(sandbox_mnt[i], &st) && S_ISDIR(st.st_mode))
			mnt = sandbox_mnt[i];
	if (!mnt) {
		errno = ENOENT;
		return -1;
	}
	if (geteuid() != 0) {
		if (sandbox_userns())
			return -1;
	} else if (unshare(CLONE_NEWNS)) {
		return -1;
	}
	/* nothing we do here reaches the host's mounts */
	if (mount("", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;

	for (i = 0; i < c->n_ro; i++)
		dirs[nfd++] = c->ro_dir[i];
	if (keep_proc)
		dirs[nfd++] = "/proc";
	for (i = 0; i < (unsigned)nfd; i++)
		fds[i] = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (mount("slipway", mnt, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=16k,nr_inodes=64,mode=0755"))
		goto out;
	for (i = 0; i < (unsigned)nfd; i++) {
		if (fds[i] < 0) {
			warn("sandbox: %s is not a directory we can keep",
			     dirs[i]);
			continue;
		}
		if (snprintf(target, sizeof(target), "%s%s", mnt, dirs[i]) >=
			    (int)sizeof(target) ||
		    sandbox_mkdirs(target, strlen(mnt)) ||
		    sandbox_bind_ro(fds[i], target)) {
			warn_perror("sandbox: cannot keep %s", dirs[i]);
			continue;
		}
	}
	if (mount(NULL, mnt, NULL,
		  MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL))
		goto out;
	if (chdir(mnt) || syscall(SYS_pivot_root, ".", "."))
		goto out;
	/* the old root is stacked under the new one at "/": detach it */
	if (umount2(".", MNT_DETACH) || chdir("/"))
		goto out;
	ret = 0;
out:
	e = errno;
	for (i = 0; i < (unsigned)nfd; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	errno = e;
	return ret;
}

/**
 * sandbox_landlock_rule() - allow @access beneath the directory at @fd
 * @rs:		ruleset
 * @fd:		directory (any open fd, O_PATH included)
 * @access:	LANDLOCK_ACCESS_FS_* rights
 *
 * #syscalls:setup landlock_add_rule
 * Return: 0, or -1
 */
static int sandbox_landlock_rule(int rs, int fd, uint64_t access)
{
	struct landlock_path_beneath_attr pb = {
		.allowed_access = access,
		.parent_fd = fd,
	};

	return (int)syscall(SYS_landlock_add_rule, rs,
			    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

/**
 * sandbox_landlock() - no filesystem access but what @c keeps
 * @c:		configuration
 * @keep_proc:	keep /proc readable too (sanitizers)
 *
 * #syscalls:setup landlock_create_ruleset landlock_restrict_self openat close
 * Return: the Landlock ABI version in force, or -1 with errno set
 */
static int sandbox_landlock(const struct sandbox_conf *c, bool keep_proc)
{
	const uint64_t rd = LANDLOCK_ACCESS_FS_READ_FILE |
			    LANDLOCK_ACCESS_FS_READ_DIR;
	struct landlock_ruleset_attr attr = { 0 };
	uint64_t wr = LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_MAKE_REG;
	int abi, rs, fd, e;
	unsigned i;

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		return -1;
	attr.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3) {
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
		wr |= LANDLOCK_ACCESS_FS_TRUNCATE;
	}
	if (abi >= 5)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0)
		return -1;
	debug("sandbox: Landlock: %u director%s readable", c->n_ro,
	      c->n_ro == 1 ? "y" : "ies");
	for (i = 0; i < c->n_ro + (keep_proc ? 1 : 0); i++) {
		const char *d = i < c->n_ro ? c->ro_dir[i] : "/proc";

		fd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || sandbox_landlock_rule(rs, fd, rd))
			warn_perror("sandbox: cannot keep %s readable", d);
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < c->n_dirfd; i++) {
		uint64_t a = c->dirfd_access[i] == SANDBOX_READ ?
				     rd :
			     c->dirfd_access[i] == SANDBOX_WRITE ?
				     wr :
				     LANDLOCK_ACCESS_FS_REMOVE_FILE;

		if (c->dirfd[i] >= 0 &&
		    sandbox_landlock_rule(rs, c->dirfd[i], a))
			warn_perror("sandbox: Landlock rule");
	}
	if (syscall(SYS_landlock_restrict_self, rs, 0)) {
		e = errno;
		close(rs);
		errno = e;
		return -1;
	}
	close(rs);
	return abi;
}

/**
 * sandbox_caps_bound() - empty the bounding and ambient capability sets
 * @keep:	capabilities (bits, each below 32) to leave in the bounding set
 *
 * The bounding set needs CAP_SETPCAP to shrink: without it (an
 * unprivileged user outside a user namespace of its own) it stays as it
 * was, which no new privileges makes harmless.
 *
 * #syscalls:setup prctl
 * Return: 0, or -1 with errno set
 */
static int sandbox_caps_bound(uint32_t keep)
{
	int cap;

	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
		if (cap < 32 && (keep & (1U << cap)))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EPERM)
			return -1;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -1;
	return 0;
}

/**
 * sandbox_caps_clear() - empty the effective, permitted and inheritable sets
 * @keep:	capabilities (bits, each below 32) to leave in the effective
 *		and permitted sets, those of them in the permitted set now
 * @kept:	out: the capabilities kept (bits)
 *
 * #syscalls:setup capget capset
 * Return: 0, or -1 with errno set
 */
static int sandbox_caps_clear(uint32_t keep, uint32_t *kept)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2];
	uint32_t bits = 0;

	*kept = 0;
	if (keep && !syscall(SYS_capget, &hdr, data))
		bits = data[0].permitted & keep;
	memset(data, 0, sizeof(data));
	data[0].effective = data[0].permitted = bits;
	if (syscall(SYS_capset, &hdr, data))
		return -1;
	*kept = bits;
	return 0;
}

/**
 * sandbox_runas() - become the --runas user and group (as root)
 * @c:	configuration
 *
 * #syscalls:setup setgroups setresgid setresuid
 * Return: 0, or -1 with errno set
 */
static int sandbox_runas(const struct sandbox_conf *c)
{
	if (setgroups(0, NULL) || setresgid(c->gid, c->gid, c->gid) ||
	    setresuid(c->uid, c->uid, c->uid))
		return -1;
	return 0;
}

int sandbox_enter(const struct sandbox_conf *c)
{
	uint32_t keep = (c->keep_net_bind ? 1U << CAP_NET_BIND_SERVICE : 0) |
			(c->keep_net_admin ? 1U << CAP_NET_ADMIN : 0);
	bool keep_proc = SANDBOX_ASAN;
	const char *fs = "none", *caps;
	char fsbuf[32];
	uint32_t kept;
	int abi;

	if (c->off) {
		if (c->runas && geteuid() == 0 && sandbox_runas(c)) {
			err_perror("cannot become uid %u gid %u",
				   (unsigned)c->uid, (unsigned)c->gid);
			return -EPERM;
		}
		if (!c->who)
			info("sandbox off (--no-sandbox): full privileges, "
			     "filesystem and system calls");
		return 0;
	}
	if (c->runas && geteuid() != 0 &&
	    (c->uid != geteuid() || c->gid != getegid())) {
		err("--runas needs root: we are uid %u", (unsigned)geteuid());
		return -EPERM;
	}

	/* first: Landlock needs it, and nothing below is an execve() */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err_perror("cannot set no new privileges");
		return -EPERM;
	}
	if (SANDBOX_TSAN) {
		fs = "kept (ThreadSanitizer build)";
		if (!c->who)
			info("sandbox: filesystem kept and seccomp skipped "
			     "under ThreadSanitizer (it symbolises from the "
			     "binary's path)");
	} else if (!c->keep_fs && (!c->no_userns || geteuid() == 0) &&
		   !sandbox_mountns(c, keep_proc)) {
		fs = "empty mount namespace";
	} else {
		if (!c->keep_fs && (!c->no_userns || geteuid() == 0))
			debug("sandbox: no mount namespace (%s): Landlock "
			      "instead",
			      strerror(errno));
		abi = sandbox_landlock(c, keep_proc);
		if (abi > 0) {
			snprintf(fsbuf, sizeof(fsbuf), "Landlock ABI %d", abi);
			fs = fsbuf;
		} else {
			warn("sandbox: the host filesystem stays reachable: no "
			     "mount namespace and no Landlock (%s)",
			     strerror(errno));
		}
	}

	/* the bounding set first, while we still have CAP_SETPCAP */
	if (sandbox_caps_bound(keep)) {
		err_perror("cannot drop capabilities");
		return -EPERM;
	}
	/* a capability we keep survives the change of user */
	if (c->runas && geteuid() == 0 && keep &&
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		err_perror("cannot keep capabilities through --runas");
		return -EPERM;
	}
	if (c->runas && geteuid() == 0 && sandbox_runas(c)) {
		err_perror("cannot become uid %u gid %u", (unsigned)c->uid,
			   (unsigned)c->gid);
		return -EPERM;
	}
	if (keep)
		prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if (sandbox_caps_clear(keep, &kept)) {
		err_perror("cannot drop capabilities");
		return -EPERM;
	}
	caps = !kept ? "no capabilities" :
	       kept == 1U << CAP_NET_BIND_SERVICE ?
		       "CAP_NET_BIND_SERVICE only" :
	       kept == 1U << CAP_NET_ADMIN ? "CAP_NET_ADMIN only (TCP_REPAIR)" :
					     "CAP_NET_ADMIN (TCP_REPAIR) and "
					     "CAP_NET_BIND_SERVICE only";
	/* setuid() and entering a user namespace clear it: the leak check's
	 * ptrace needs it */
	if (SANDBOX_ASAN)
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (c->who)
		debug("sandbox of the %s: filesystem: %s; uid %u gid %u; %s; "
		      "no new privileges",
		      c->who, fs, (unsigned)geteuid(), (unsigned)getegid(),
		      caps);
	else
		info("sandbox: filesystem: %s; uid %u gid %u; %s; no new "
		     "privileges",
		     fs, (unsigned)geteuid(), (unsigned)getegid(), caps);
	return 0;
}

bool sandbox_sanitized(void)
{
	return SANDBOX_ASAN || SANDBOX_TSAN;
}

int sandbox_seccomp(const struct sandbox_conf *c)
{
	int ret;

	if (c->off)
		return 0;
	if (SANDBOX_ASAN || SANDBOX_TSAN) {
		info("sandbox: no seccomp filter in a sanitizer build (its "
		     "run-time needs calls the allowlist does not name)");
		return 0;
	}
	ret = seccomp_install(c->seccomp_log, c->kill_pid);
	if (ret) {
		errno = -ret;
		err_perror("cannot install the seccomp filter");
		return ret;
	}
	info("sandbox: seccomp allowlist of %u system calls; others %s; %u "
	     "allowed only with some arguments",
	     seccomp_allow_count(),
	     c->seccomp_log ? "logged (--seccomp-log)" : "kill the process",
	     seccomp_arg_count());
	return 0;
}
