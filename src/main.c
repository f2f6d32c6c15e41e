/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - command line to configuration to a running gateway */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_tun.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "ctl/s4n_api.h"
#include "edge/edge.h"
#include "cli/conf.h"
#include "cli/conf_net.h"
#include "svc/dns_fwd.h"
#include "svc/fwd.h"
#include "svc/fwdauto.h"
#include "shard/mbox.h"
#include "mig/migrate.h"
#include "os/netns.h"
#include "cli/pasta.h"
#include "os/resolvh.h"
#include "os/repair.h"
#include "os/repair_helper.h"
#include "cli/s4n.h"
#include "os/sandbox.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "svc/splice.h"
#include "svc/svc.h"
#include "svc/udpns.h"
#include "obs/ctr.h"
#include "obs/ofile.h"
#include "obs/pcap.h"
#include "util/log.h"

/**
 * struct run - one run of the gateway, from the command line to the exit:
 * what each stage of main() fills and the stages after it read, the signal
 * handler on_other() included
 * @conf:	configuration (run_parse())
 * @s4n:	slirp4netns mode: exit fd, ready fd, API socket path
 * @pasta:	pasta and passt modes: foreground, one-off, PID file, the
 *		fd to the waiting parent
 * @sigmask:	the signals shard 0 takes through @sigfd, blocked from the
 *		start (run_signals_block())
 * @nc:		what netns_setup() is asked for (netns_conf_from_conf())
 * @resolv_text: the resolv.conf a namespace we make gets (@nc points here)
 * @ns:		namespace state (netns_setup())
 * @mac:	the guest's MAC address: the tap's, or broadcast (not known)
 * @edge:	the guest's side; lives as long as the process, as its state
 *		does (run_edge())
 * @grp:	the shard group: @grp.n shards, one per edge queue
 * @shs:	the shards (run_shards())
 * @tid:	the threads of shards 1 and up (run_threads())
 * @pcap:	--pcap's file
 * @pbufs:	each shard's buffer in front of @pcap
 * @ctl:	the control socket, metrics and API socket server (its thread)
 * @mig_dirfd:	--migrate-from: its socket file's directory, or -1
 * @sb:		what the sandbox keeps (sandbox_prepare())
 * @sigfd:	signalfd
 * @ns_dir:	directory of the --netns file we watch for deletion
 * @ns_name:	its name in @ns_dir
 * @inofd:	inotify fd watching @ns_dir, or -1
 * @stats_dirfd: --stats-file's directory (O_PATH, opened before the
 *		sandbox took the filesystem away), or -1
 * @stats_name:	--stats-file's name in @stats_dirfd
 * @exit_code:	status to exit with
 * @terminating: SIGTERM was forwarded to the command
 */
struct run {
	struct conf conf;
	struct s4n_conf s4n;
	struct pasta_conf pasta;
	sigset_t sigmask;
	struct netns_conf nc;
	char resolv_text[600];
	struct netns_state ns;
	const uint8_t *mac;
	struct edge edge;
	struct shard_group grp;
	struct shard shs[SHARDS_MAX];
	pthread_t tid[SHARDS_MAX];
	struct pcap pcap;
	struct pcap_buf pbufs[SHARDS_MAX];
	struct ctl *ctl;
	int mig_dirfd;
	struct sandbox_conf sb;
	int sigfd;
	char ns_dir[256];
	const char *ns_name;
	int inofd;
	int stats_dirfd;
	const char *stats_name;
	int exit_code;
	bool terminating;
};

/* the shard threads wait here until the seccomp filter covers them */
static pthread_barrier_t start_barrier;

/**
 * struct edge_kind - one way to attach the guest: a row of edge_kinds[]
 * @init:	the kind's constructor (edge.h)
 * @in_netns:	the edge is a tap: made first, in the guest's namespace
 *		(netns_setup()), which gives the guest's MAC address too
 * @keep_fs:	the edge reaches paths learnt at run time (the datagram
 *		edge connects to its guest's socket): the sandbox keeps the
 *		host filesystem, restricted by Landlock alone
 */
struct edge_kind {
	edge_init_fn *init;
	bool in_netns;
	bool keep_fs;
};

/* the edge kinds, by the command line's choice (conf.c sets it) */
static const struct edge_kind edge_kinds[CONF_EDGE_NUM] = {
	[CONF_EDGE_TAP] = { tap_edge_init, true, false },
	[CONF_EDGE_STREAM] = { qsock_stream_edge_init, false, false },
	[CONF_EDGE_DGRAM] = { qsock_dgram_edge_init, false, true },
	[CONF_EDGE_FD] = { qsock_stream_edge_init, false, false },
	[CONF_EDGE_VU] = { vu_edge_init, false, false },
};

/**
 * ns_watch_start() - watch a --netns file for deletion (ip netns del)
 * @r:		run state
 * @path:	the --netns argument
 *
 * Our tap holds a reference on the namespace, so it is never destroyed
 * while we run: deletion has to be seen as the file going away.
 *
 * #syscalls:setup inotify_init1 inotify_add_watch
 */
static void ns_watch_start(struct run *r, const char *path)
{
	char *slash;

	r->inofd = -1;
	if (!strchr(path, '/'))
		snprintf(r->ns_dir, sizeof(r->ns_dir), "/run/netns/%s", path);
	else
		snprintf(r->ns_dir, sizeof(r->ns_dir), "%s", path);
	if (!strncmp(r->ns_dir, "/proc/", 6))
		return; /* a process's namespace: the pidfd watches it */
	slash = strrchr(r->ns_dir, '/');
	*slash = '\0';
	r->ns_name = slash + 1;
	r->inofd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (r->inofd < 0 ||
	    inotify_add_watch(r->inofd, *r->ns_dir ? r->ns_dir : "/",
			      IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF) < 0)
		warn_perror("cannot watch %s for deletion", path);
}

/**
 * ns_watch_gone() - read inotify events: was our namespace file removed?
 * @r:	run state
 *
 * #syscalls read
 * Return: true if it was
 */
static bool ns_watch_gone(struct run *r)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = read(r->inofd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + n) {
			struct inotify_event *ev =
				(struct inotify_event *)(void *)p;

			if ((ev->mask & IN_DELETE_SELF) ||
			    (ev->len && !strcmp(ev->name, r->ns_name)))
				return true;
			p += sizeof(*ev) + ev->len;
		}
	}
	return false;
}

/**
 * stats_open_dir() - open --stats-file's directory, for dump_stats()
 * @r:		run state (@stats_dirfd, @stats_name set)
 * @path:	--stats-file, or NULL
 *
 * #syscalls:setup openat
 */
static void stats_open_dir(struct run *r, const char *path)
{
	const char *slash;

	r->stats_dirfd = -1;
	if (!path)
		return;
	slash = strrchr(path, '/');
	r->stats_name = slash ? slash + 1 : path;
	r->stats_dirfd = qsock_path_dir(path);
	if (r->stats_dirfd < 0 || !*r->stats_name)
		die_perror("--stats-file %s: cannot open its directory", path);
	/* a symbolic link there: refused now, not at exit (ofile.h) */
	if (ofile_check(r->stats_dirfd, r->stats_name, "--stats-file", path))
		exit(1);
}

/**
 * dump_stats() - write the counters as JSON to the stats file or stderr
 * @sh:	shard 0 (the others are read through its group, without locks:
 *	each counter is one aligned word with a single writer)
 * @r:	run state
 *
 * The file is opened through its directory's fd: the sandbox leaves no
 * path to it.
 *
 * #syscalls fcntl fstat write close
 */
static void dump_stats(struct shard *sh, const struct run *r)
{
	uint64_t *shards[SHARDS_MAX];
	char extra[256];
	FILE *out = stderr;
	unsigned i;
	int fd;

	for (i = 0; i < sh->grp->n; i++)
		shards[i] = sh->grp->sh[i]->stats.ctr;

	if (r->conf.stats_file) {
		/* not through a link, nor into someone else's file */
		fd = ofile_open(r->stats_dirfd, r->stats_name, "--stats-file",
				r->conf.stats_file, 0, 0644);
		if (fd < 0)
			return;
		out = fdopen(fd, "w");
		if (!out) {
			close(fd);
			err_perror("cannot write --stats-file %s",
				   r->conf.stats_file);
			return;
		}
	}
	snprintf(extra, sizeof(extra),
		 "\"version\":\"%s\",\"edge\":\"%s\",\"peek_offset\":%s,"
		 "\"shards_n\":%u,\"max_flows\":%u",
		 SLIPWAY_VERSION, sh->edge->ops->name,
		 sh->sock.peek_off ? "true" : "false", sh->grp->n,
		 r->conf.max_flows);
	ctr_dump_json(out, shards, sh->grp->n, extra);
	if (out != stderr)
		fclose(out);
}

/**
 * run_summary() - one line at exit, at the info level (-v): flows, bytes
 * each way, drops, and the integrity gate (every byte the guest
 * acknowledged was read from a host socket, no edge write failed)
 * @sh:	shard 0 (the others read through its group, as dump_stats())
 */
static void run_summary(const struct shard *sh)
{
	uint64_t v[CTR_NUM] = { 0 }, drops = 0, flows;
	char gate[160];
	unsigned i, k;

	if (log_max_level < LOG_INFO)
		return;
	for (k = 0; k < sh->grp->n; k++)
		for (i = 0; i < CTR_NUM; i++)
			v[i] += sh->grp->sh[k]->stats.ctr[i];
	for (i = 0; i < CTR_NUM; i++)
		if (strstr(ctr_names[i], "_DROP") ||
		    strstr(ctr_names[i], "_MALFORMED"))
			drops += v[i];
	flows = v[CTR_TCP_FLOWS_OPENED_GUEST] + v[CTR_TCP_FLOWS_OPENED_HOST] +
		v[CTR_UDP_FLOWS_OPENED] + v[CTR_SPLICE_OPENED] +
		v[CTR_UDPNS_FLOWS_OPENED];
	if (v[CTR_TCP_ACKED_BYTES] == v[CTR_TCP_HOST_READ_BYTES] &&
	    !v[CTR_EDGE_TX_ERRORS])
		snprintf(gate, sizeof(gate),
			 "held (acked == read, no edge errors)");
	else
		snprintf(gate, sizeof(gate),
			 ": %llu bytes acked of %llu read (flows cut at exit "
			 "count here), %llu edge errors",
			 (unsigned long long)v[CTR_TCP_ACKED_BYTES],
			 (unsigned long long)v[CTR_TCP_HOST_READ_BYTES],
			 (unsigned long long)v[CTR_EDGE_TX_ERRORS]);
	info("exit: %llu flows, %llu bytes from the guest, %llu to it, %llu "
	     "dropped; integrity gate%s%s",
	     (unsigned long long)flows,
	     (unsigned long long)v[CTR_EDGE_RX_BYTES],
	     (unsigned long long)v[CTR_EDGE_TX_BYTES],
	     (unsigned long long)drops, *gate == ':' ? "" : " ", gate);
}

/**
 * on_other() - signals, the watched namespace owner, the slirp4netns exit fd
 * @sh:		shard
 * @data:	epoll data (EP_SIGNAL, EP_PIDFD, EP_NSWATCH or EP_CTL)
 * @arg:	struct run
 *
 * #syscalls read wait4 kill
 * Return: true to stop the loop
 */
static bool on_other(struct shard *sh, uint64_t data, void *arg)
{
	struct run *r = arg;
	struct signalfd_siginfo si;
	pid_t cmd = r->ns.cmd_pid;
	int st;

	if (EP_TYPE(data) == EP_NSWATCH) {
		if (!ns_watch_gone(r))
			return false;
		info("the namespace was deleted: stopping");
		r->exit_code = 0;
		return true;
	}
	if (EP_TYPE(data) == EP_CTL && EP_IDX(data) == CTL_IDX_EXIT_FD) {
		char b[64];
		ssize_t n = read(r->s4n.exit_fd, b, sizeof(b));

		if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
			return false;
		info("the exit fd %s: stopping", n ? "failed" : "closed");
		r->exit_code = 0;
		return true;
	}
	if (EP_TYPE(data) == EP_PIDFD) {
		info("the namespace's process exited: stopping");
		r->exit_code = 0;
		return true;
	}
	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR1:
			dump_stats(sh, r);
			break;
		case SIGCHLD:
			if (cmd > 0 && waitpid(cmd, &st, WNOHANG) == cmd) {
				r->exit_code = WIFEXITED(st) ?
						       WEXITSTATUS(st) :
						       128 + WTERMSIG(st);
				return true;
			}
			break;
		case SIGINT:
			/* the terminal sent it to the command too */
			if (cmd > 0)
				break;
			r->exit_code = 0;
			return true;
		default: /* SIGTERM, SIGHUP */
			if (cmd > 0 && !r->terminating) {
				r->terminating = true;
				kill(cmd, SIGTERM);
				break;
			}
			r->exit_code = cmd > 0 ? 128 + (int)si.ssi_signo : 0;
			return true;
		}
	}
	return false;
}

/**
 * worker_other() - the other shards get no signals or watches
 * @sh:		shard
 * @data:	epoll data
 * @arg:	unused
 *
 * Return: false
 */
static bool worker_other(struct shard *sh, uint64_t data, void *arg)
{
	(void)sh;
	(void)data;
	(void)arg;
	return false;
}

/**
 * worker() - a shard thread other than shard 0
 * @arg:	its struct shard
 *
 * A failing loop (the edge went away) makes shard 0 stop everything.
 * It waits until main() has installed the seccomp filter (for every
 * thread at once) before it handles anything.
 *
 * #syscalls futex
 * Return: NULL
 */
static void *worker(void *arg)
{
	struct shard *sh = arg;
	int ret;

	pthread_barrier_wait(&start_barrier);
	ret = shard_run(sh, worker_other, NULL);

	if (ret) {
		atomic_store(&sh->grp->fatal, ret);
		sh->peers.kick |= 1U;
		mbox_kick(sh);
	}
	return NULL;
}

/**
 * search_list_load() - the host's DNS search list, for DHCP option 119
 * @c:		configuration (search, search_len filled)
 *
 * Reads the last "search" (or "domain") line of the resolv.conf and
 * encodes its names in DNS wire format without compression (RFC 3397).
 * Names that do not fit are left out. Whoever may write the file's
 * directory may put a FIFO or a device there: the file is opened
 * non-blocking and read up to RESOLVH_TEXT_MAX bytes, as the resolv.conf
 * reader does (resolvh.c), so that start-up cannot hang on it.
 *
 * #syscalls:setup openat read close fcntl
 */
static void search_list_load(struct conf *c)
{
	int fd = open(c->resolv_conf, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char line[512], last[512] = "";
	size_t got = 0;
	FILE *f;

	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (got < RESOLVH_TEXT_MAX && fgets(line, sizeof(line), f)) {
		got += strlen(line) + 1;
		if (!strncmp(line, "search", 6) || !strncmp(line, "domain", 6))
			snprintf(last, sizeof(last), "%s", line + 6);
	}
	fclose(f);
	if (*last) {
		size_t n = strcspn(last, "#;\n");

		last[n] = '\0';
		snprintf(c->search_line, sizeof(c->search_line), "search%s\n",
			 last);
	}
	c->search_len = 0;
	for (char *save, *name = strtok_r(last, " \t\r\n", &save); name;
	     name = strtok_r(NULL, " \t\r\n", &save)) {
		uint8_t enc[256];
		size_t n = 0;
		bool ok = true;

		for (char *save2, *lab = strtok_r(name, ".", &save2); lab;
		     lab = strtok_r(NULL, ".", &save2)) {
			size_t l = strlen(lab);

			if (!l || l > 63 || n + 1 + l + 1 > sizeof(enc)) {
				ok = false;
				break;
			}
			enc[n++] = (uint8_t)l;
			memcpy(enc + n, lab, l);
			n += l;
		}
		if (!ok || !n || c->search_len + n + 1 > sizeof(c->search))
			continue;
		enc[n++] = 0;
		memcpy(c->search + c->search_len, enc, n);
		c->search_len += n;
	}
}

/**
 * fwd_privileged() - whether a -t or -u option publishes a port below 1024
 * @c:		configuration
 *
 * A --migrate-from destination binds its ports once the source's state
 * came, after the sandbox: it keeps CAP_NET_BIND_SERVICE for those.
 *
 * Return: true if one does
 */
static bool fwd_privileged(const struct conf *c)
{
	unsigned i;

	for (i = 0; i < c->nfwd; i++)
		if (c->fwd[i].first < 1024)
			return true;
	for (i = 0; i < c->nufwd; i++)
		if (c->ufwd[i].first < 1024)
			return true;
	return false;
}

/**
 * repair_helper_start() - --migrate-repair: fork the repair helper, which
 * holds CAP_NET_ADMIN for TCP_REPAIR so that we never do
 * @c:		configuration (--runas)
 *
 * Return: 0, or -1 (logged: the helper cannot start, or has not got the
 * capability)
 */
static int repair_helper_start(const struct conf *c)
{
	const struct repairh_opts o = { .runas = c->runas,
					.uid = c->runas_uid,
					.gid = c->runas_gid };
	pid_t pid;
	int fd = repairh_start(&o, &pid);

	if (fd < 0) {
		err("--migrate-repair: no repair helper: cannot start");
		return -1;
	}
	repair_init(fd);
	return 0;
}

/**
 * sandbox_prepare() - what the sandbox must keep for the running gateway
 * @sb:		filled
 * @c:		configuration
 * @r:		run state (the stats file's directory)
 * @e:		edge (the socket file's directory)
 *
 * Everything opened by path after set-up is here: the stats file (through
 * @r->stats_dirfd) and our socket files, removed at exit (through the
 * edge's EDGE_FD_DIR, ctl_dirfd() and ctl_api_dirfd()). resolv.conf is
 * not: the resolv.conf reader (resolvh.c), a process of its own, keeps its
 * directory and sends us its contents.
 * The datagram edge connects to its guest's socket by path, learnt at run
 * time: the host filesystem stays mounted there, and Landlock alone
 * restricts it.
 */
static void sandbox_prepare(struct sandbox_conf *sb, const struct conf *c,
			    const struct run *r, const struct edge *e)
{
	memset(sb, 0, sizeof(*sb));
	sb->off = !c->sandbox;
	sb->seccomp_log = c->seccomp_log;
	sb->runas = c->runas;
	sb->uid = c->runas_uid;
	sb->gid = c->runas_gid;
	sb->keep_fs = edge_kinds[c->edge].keep_fs;
	sb->keep_net_bind = c->s4n || (c->migrate_from && fwd_privileged(c));
	sb->kill_pid = r->ns.cmd_pid > 0 ? r->ns.cmd_pid : 0;
	if (r->stats_dirfd >= 0) {
		sb->dirfd[sb->n_dirfd] = r->stats_dirfd;
		sb->dirfd_access[sb->n_dirfd++] = SANDBOX_WRITE;
	}
	if (e->ops->fd(e, EDGE_FD_DIR, 0) >= 0) {
		sb->dirfd[sb->n_dirfd] = e->ops->fd(e, EDGE_FD_DIR, 0);
		sb->dirfd_access[sb->n_dirfd++] = SANDBOX_REMOVE;
	}
	if (ctl_dirfd(r->ctl) >= 0) {
		sb->dirfd[sb->n_dirfd] = ctl_dirfd(r->ctl);
		sb->dirfd_access[sb->n_dirfd++] = SANDBOX_REMOVE;
	}
	if (ctl_api_dirfd(r->ctl) >= 0) {
		sb->dirfd[sb->n_dirfd] = ctl_api_dirfd(r->ctl);
		sb->dirfd_access[sb->n_dirfd++] = SANDBOX_REMOVE;
	}
	if (r->mig_dirfd >= 0) {
		sb->dirfd[sb->n_dirfd] = r->mig_dirfd;
		sb->dirfd_access[sb->n_dirfd++] = SANDBOX_REMOVE;
	}
	/* --migrate-to connects to the destination's socket by path, at
	 * run time: its directory stays there, read-only (connecting to a
	 * socket is no write to its file system) */
	if (c->migrate_to) {
		static char dir[CONF_SOCK_PATH_MAX];
		char *slash;

		strcpy(dir, c->migrate_to);
		slash = strrchr(dir, '/');
		if (!slash)
			strcpy(dir, ".");
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		sb->ro_dir[sb->n_ro++] = dir;
	}
}

/**
 * nofile_raise() - raise the soft limit on open files to the hard one
 *
 * Every flow holds a host socket (a spliced connection six descriptors),
 * and the usual soft limit of 1024 is reached by a guest with a thousand
 * connections, well below --max-flows. The hard limit is what we may use
 * without privileges (pasta does the same). Called after the helper
 * children and the command were forked: they keep the limit they were
 * given (a program that uses select() needs the 1024).
 *
 * #syscalls:setup prlimit64
 */
static void nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		debug("open files limit: %s", strerror(errno));
		return;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t was = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			debug("cannot raise the open files limit from %llu to "
			      "%llu: %s",
			      (unsigned long long)was,
			      (unsigned long long)rl.rlim_max, strerror(errno));
			return;
		}
		debug("open files limit raised from %llu to %llu",
		      (unsigned long long)was, (unsigned long long)rl.rlim_cur);
		return;
	}
	debug("open files limit: %llu (the hard limit)",
	      (unsigned long long)rl.rlim_cur);
}

/**
 * run_parse() - the command line (as slipway, slirp4netns, pasta or passt)
 * to the configuration, its addresses worked out
 * @r:		run state (@conf, @s4n, @pasta filled)
 * @argc:	argument count
 * @argv:	arguments
 *
 * As pasta, the set-up goes on in a child the parent waits for
 * (pasta_daemon_start()).
 *
 * Return: 0 to go on, else the status to exit with: 2 on a bad command
 * line, 1 on another failure (logged)
 */
static int run_parse(struct run *r, int argc, char **argv)
{
	enum conf_pasta_mode pmode = CONF_PASTA_NONE;
	int ret, how;

	r->s4n.exit_fd = r->s4n.ready_fd = -1;
	r->pasta = (struct pasta_conf){ .foreground = true,
					.netns_quit = true,
					.pid_dirfd = -1,
					.log_fd = -1,
					.null_fd = -1,
					.ready_fd = -1 };
	how = s4n_invoked(argc, argv);
	if (how) {
		s4n_conf_parse(&r->conf, &r->s4n, argc - (how - 1),
			       argv + (how - 1));
	} else if ((how = pasta_invoked(argc, argv, &pmode))) {
		pasta_conf_parse(&r->conf, &r->pasta, pmode, argc - (how - 1),
				 argv + (how - 1));
		/* as pasta: set up in a child the parent waits for */
		pasta_daemon_start(&r->pasta);
	} else {
		conf_parse(&r->conf, argc, argv);
	}
	ret = conf_net_setup(&r->conf);
	if (ret)
		return ret == -EINVAL ? 2 : 1;
	search_list_load(&r->conf);
	return 0;
}

/**
 * run_signals_block() - block the signals shard 0 reads from its signalfd
 * (run_watch()), ignore SIGPIPE
 * @r:		run state (@sigmask filled)
 *
 * Called before any child exists, so that no SIGCHLD is lost.
 *
 * #syscalls:setup rt_sigaction
 */
static void run_signals_block(struct run *r)
{
	sigemptyset(&r->sigmask);
	sigaddset(&r->sigmask, SIGINT);
	sigaddset(&r->sigmask, SIGTERM);
	sigaddset(&r->sigmask, SIGHUP);
	sigaddset(&r->sigmask, SIGUSR1);
	sigaddset(&r->sigmask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &r->sigmask, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/**
 * netns_resolv_text() - the resolv.conf a namespace we make gets: our DNS
 * forwarder's addresses and the host's search list
 * @c:		configuration
 * @buf:	filled
 * @size:	size of @buf
 *
 * Only a namespace we create (no --netns) and configure, with DNS
 * forwarded at an IPv4 address, gets one.
 *
 * Return: @buf, or NULL for none
 */
static const char *netns_resolv_text(const struct conf *c, char *buf,
				     size_t size)
{
	char a[INET_ADDRSTRLEN], a6[INET6_ADDRSTRLEN + 16] = "";

	if (!c->dns || !c->dns4 || c->netns || !c->configure)
		return NULL;
	inet_ntop(AF_INET, &c->dns4, a, sizeof(a));
	if (c->ipv6 && !IN6_IS_ADDR_UNSPECIFIED(&c->dns6)) {
		memcpy(a6, "nameserver ", 11);
		inet_ntop(AF_INET6, &c->dns6, a6 + 11, INET6_ADDRSTRLEN);
		strcat(a6, "\n");
	}
	snprintf(buf, size, "nameserver %s\n%s%s", a, a6, c->search_line);
	return buf;
}

/**
 * netns_conf_from_conf() - what netns_setup() is asked for, from the
 * configuration: every field of struct netns_conf, in one table
 * @nc:		filled (all of it)
 * @c:		configuration
 * @resolv:	buffer for the namespace's resolv.conf (netns_resolv_text());
 *		@nc->resolv_text points into it
 * @resolv_size: size of @resolv
 *
 * netns.c takes its own struct rather than struct conf: this is the one
 * place that says which option becomes which of its fields.
 */
static void netns_conf_from_conf(struct netns_conf *nc, const struct conf *c,
				 char *resolv, size_t resolv_size)
{
	*nc = (struct netns_conf){
		.netns_path = c->netns,
		.cmd = c->cmd,
		.userns = c->userns,
		.ifname = c->ifname,
		.configure = c->configure,
		.addr_be = c->guest4,
		.prefix_len = c->prefix_len,
		.gw_be = c->gw4,
		.mtu = c->mtu,
		.queues = c->shards,
		.offloads = c->offload ? TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 :
					 0,
		.vnet_hdr_len = 12,
		.nsh = (c->splice && c->nfwd) || c->nnsfwd || c->nnsufwd ||
		       conf_has_auto(c),
		.ipv6 = c->ipv6,
		.userns_path = c->userns_path,
		.mac_set = c->mac_set,
		.route_beside = c->s4n,
		.prefix6_len = c->prefix6_len,
		.resolv_text = netns_resolv_text(c, resolv, resolv_size),
	};
	memcpy(nc->mac, c->mac, 6);
	memcpy(nc->addr6, &c->guest6, 16);
	/* the default router: fe80::1, or the host's in pasta's model */
	memcpy(nc->gw6,
	       c->addr_model == CONF_ADDR_HOST_COPY ? &c->gw6 : &c->gw6_ll, 16);
}

/**
 * run_netns() - for a tap edge, the guest's namespace with its tap
 * @r:		run state (@nc, @mac, @inofd filled; @ns for a tap edge)
 *
 * Return: 0 to go on, 1 on failure (logged)
 */
static int run_netns(struct run *r)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const struct edge_kind *kind;

	netns_conf_from_conf(&r->nc, &r->conf, r->resolv_text,
			     sizeof(r->resolv_text));
	r->mac = bcast;
	/* watch before the tap exists: a deletion right after the namespace
	 * is configured must not be missed */
	r->inofd = -1;
	kind = &edge_kinds[r->conf.edge];
	ASSERT(kind->init);
	if (kind->in_netns) {
		if (r->conf.netns && r->pasta.netns_quit)
			ns_watch_start(r, r->conf.netns);
		if (netns_setup(&r->nc, &r->ns))
			return 1;
		r->mac = r->ns.mac;
	}
	return 0;
}

/**
 * run_edge() - attach the guest: make the edge of the kind asked for
 * @r:		run state (@edge made, @grp.n set to its number of queues)
 *
 * Return: 0 to go on, 1 on failure (logged)
 */
static int run_edge(struct run *r)
{
	const struct conf *c = &r->conf;
	const struct edge_args args = {
		.path = c->sock_path,
		.fd = c->sock_fd,
		.nqueues = c->shards,
		.offload = c->offload,
		.mtu = c->mtu,
		.ctr = r->shs[0].stats.ctr,
		.tap_fds = r->ns.tap_fds,
		.tap_nfds = r->ns.nqueues,
		.vnet_hdr_len = r->nc.vnet_hdr_len,
		.ifname = c->ifname,
	};
	int ret;

	ret = edge_kinds[c->edge].init(&r->edge, &args);
	if (ret == -ENOMEM)
		die("out of memory");
	if (ret) {
		if (r->edge.ops)
			r->edge.ops->fini(&r->edge);
		return 1;
	}
	r->grp.n = r->edge.nqueues;
	/* passt --one-off (or --fd): the first guest is the only one */
	if (r->pasta.one_off)
		r->edge.reconnect = false;
	return 0;
}

/**
 * run_shards() - set up every shard, and --pcap's file and buffers
 * @r:		run state (@shs and @grp set up, @pcap and @pbufs opened)
 *
 * Return: 0 to go on, 1 on failure (logged)
 */
static int run_shards(struct run *r)
{
	unsigned i;
	int ret;

	r->grp.ctl_fd = -1;
	svc_register();
	for (i = 0; i < r->grp.n; i++) {
		ret = shard_init(&r->shs[i], &r->conf, &r->edge, r->mac,
				 &r->grp, i);
		if (ret) {
			errno = -ret;
			die_perror("cannot set up");
		}
	}
	if (r->conf.pcap_path) {
		if (pcap_open(&r->pcap, r->conf.pcap_path, r->conf.pcap_max))
			return 1;
		for (i = 0; i < r->grp.n; i++) {
			if (pcap_buf_init(&r->pbufs[i], &r->pcap,
					  r->shs[i].stats.ctr))
				die("out of memory");
			r->shs[i].stats.pcap = &r->pbufs[i];
		}
	}
	return 0;
}

/**
 * ident_name() - a container or VM name from the last component of a path,
 * best effort: libvirt's passt socket "<N>-<vm>-net<K>.socket" gives
 * "<vm>"; another ".socket" or ".sock" file its name without the suffix;
 * podman's "netns-<id>" (and any other namespace file) itself
 * @path:	a namespace or socket path
 * @out:	filled ("" when nothing fits)
 * @size:	size of @out
 */
static void ident_name(const char *path, char *out, size_t size)
{
	const char *b = strrchr(path, '/');
	size_t len;
	char *dot, *net;

	b = b ? b + 1 : path;
	snprintf(out, size, "%s", b);
	len = strlen(out);
	if (len > 7 && !strcmp(out + len - 7, ".socket"))
		out[len - 7] = '\0';
	else if (len > 5 && !strcmp(out + len - 5, ".sock"))
		out[len - 5] = '\0';
	else
		return;
	/* libvirt: <domain id>-<name>-net<index> */
	dot = out;
	while (*dot >= '0' && *dot <= '9')
		dot++;
	net = strrchr(out, '-');
	if (dot > out && *dot == '-' && net && net > dot &&
	    !strncmp(net, "-net", 4) && net[4]) {
		*net = '\0';
		memmove(out, dot + 1, strlen(dot + 1) + 1);
	}
}

/**
 * run_ident() - who this instance is, for the control socket's version
 * reply: the mode, the guest, its name as far as the command line tells
 * @r:		run state (after run_netns(): the command's PID is known)
 * @id:		filled
 */
static void run_ident(const struct run *r, struct ctl_ident *id)
{
	const struct conf *c = &r->conf;
	unsigned long pid = 0;
	char *end = NULL;

	memset(id, 0, sizeof(*id));
	id->mode = c->s4n			     ? "slirp4netns" :
		   c->pasta_mode == CONF_PASTA_PASTA ? "pasta" :
		   c->pasta_mode == CONF_PASTA_PASST ? "passt" :
						       "slipway";
	if (c->netns && !strncmp(c->netns, "/proc/", 6))
		pid = strtoul(c->netns + 6, &end, 10);
	if (pid && end && !strcmp(end, "/ns/net")) {
		snprintf(id->guest, sizeof(id->guest), "pid:%lu", pid);
	} else if (c->netns) {
		/* a NAME is ip-netns's: /run/netns/NAME */
		snprintf(id->guest, sizeof(id->guest), "%s%s",
			 strchr(c->netns, '/') ? "" : "/run/netns/", c->netns);
		ident_name(c->netns, id->name, sizeof(id->name));
	} else if (r->ns.cmd_pid > 0) {
		snprintf(id->guest, sizeof(id->guest), "pid:%d",
			 (int)r->ns.cmd_pid);
		if (c->cmd && c->cmd[0])
			ident_name(c->cmd[0], id->name, sizeof(id->name));
	} else if (c->sock_path) {
		snprintf(id->guest, sizeof(id->guest), "%s", c->sock_path);
		ident_name(c->sock_path, id->name, sizeof(id->name));
	}
}

/**
 * run_services() - the control thread's sockets, migration, and shard 0's
 * services: published ports, splice, -T/-U, auto forwarding, DNS, the
 * slirp4netns API socket and exit fd
 * @r:		run state (@ctl, @mig_dirfd set)
 *
 * #syscalls:setup fcntl
 * Return: 0 to go on, 1 on failure (logged)
 */
static int run_services(struct run *r)
{
	struct shard *sh = &r->shs[0];
	const struct conf *c = &r->conf;
	struct ctl_ident id;

	run_ident(r, &id);
	r->ctl = ctl_init(sh, c, &id);
	if (!r->ctl)
		return 1;
	if (mig_init(&r->grp, c, &r->edge))
		return 1;
	r->mig_dirfd = mig_dirfd(&r->grp);
	/* a migration destination publishes its ports once the source's
	 * listening sockets came, or did not (mig_shard_poll()) */
	if (!c->migrate_from && fwd_init(sh))
		return 1;
	if (splice_init(sh, r->ns.nsh_fd))
		return 1;
	if (udpns_init(sh))
		return 1;
	if (fwdauto_init(sh))
		return 1;
	if (c->dns && dns_fwd_init(sh, c->resolv_conf))
		return 1;
	/* served by the control thread, like --ctl */
	if (r->s4n.api_path && ctl_api_init(r->ctl, r->s4n.api_path))
		return 1;
	if (r->s4n.exit_fd >= 0) {
		int fl = fcntl(r->s4n.exit_fd, F_GETFL);

		if (fl < 0 || fcntl(r->s4n.exit_fd, F_SETFL, fl | O_NONBLOCK) ||
		    shard_ep_add(sh, r->s4n.exit_fd, EPOLLIN,
				 EP_DATA(EP_CTL, CTL_IDX_EXIT_FD))) {
			err_perror("cannot watch the exit fd %d",
				   r->s4n.exit_fd);
			return 1;
		}
	}
	return 0;
}

/**
 * run_watch() - what shard 0 watches for on_other(): the signals, the
 * --netns file, the process whose namespace we joined
 * @r:		run state (@sigfd set)
 *
 * #syscalls:setup signalfd4 pidfd_open
 */
static void run_watch(struct run *r)
{
	struct shard *sh = &r->shs[0];

	r->sigfd = signalfd(-1, &r->sigmask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->sigfd < 0 ||
	    shard_ep_add(sh, r->sigfd, EPOLLIN, EP_DATA(EP_SIGNAL, 0)))
		die_perror("signalfd");
	if (r->inofd >= 0)
		shard_ep_add(sh, r->inofd, EPOLLIN, EP_DATA(EP_NSWATCH, 0));
	if (r->ns.watch_pid > 0 && r->pasta.netns_quit) {
		int pfd = (int)syscall(SYS_pidfd_open, r->ns.watch_pid, 0);

		if (pfd >= 0)
			shard_ep_add(sh, pfd, EPOLLIN, EP_DATA(EP_PIDFD, 0));
	}
}

/**
 * run_announce() - log what we serve: the edge, the guest's addresses and
 * gateways, the published ports, the shards
 * @r:		run state
 */
static void run_announce(const struct run *r)
{
	const struct conf *c = &r->conf;
	char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &c->guest4, a, sizeof(a));
	inet_ntop(AF_INET, &c->gw4, g, sizeof(g));
	info("serving %s: guest %s/%u, gateway %s%s, MTU %u, %u published "
	     "port(s), %u shard(s)",
	     r->edge.where, a, c->prefix_len, g,
	     c->map_gw ? " (= host loopback)" : "", c->mtu,
	     fwd_count(&r->shs[0]), r->grp.n);
	if (c->ipv6) {
		char a6[INET6_ADDRSTRLEN], g6[INET6_ADDRSTRLEN];
		char l6[INET6_ADDRSTRLEN + 5] = " and ";

		inet_ntop(AF_INET6, &c->guest6, a6, sizeof(a6));
		inet_ntop(AF_INET6, &c->gw6, g6, sizeof(g6));
		if (IN6_ARE_ADDR_EQUAL(&c->gw6, &c->gw6_ll))
			l6[0] = '\0';
		else
			inet_ntop(AF_INET6, &c->gw6_ll, l6 + 5,
				  INET6_ADDRSTRLEN);
		info("IPv6: guest %s/%u, gateway %s%s%s", a6, c->prefix6_len,
		     g6, l6, c->map_gw ? " (= host ::1)" : "");
	} else if (c->mtu < 1280) {
		info("IPv6 off: the MTU %u is below IPv6's minimum of 1280",
		     c->mtu);
	}
}

/**
 * run_sandbox() - write the PID file and open what we keep by path, then
 * enter the sandbox (no seccomp filter yet: run_threads())
 * @r:		run state (@stats_dirfd, @sb set)
 *
 * Return: 0 to go on, 1 on failure (logged)
 */
static int run_sandbox(struct run *r)
{
	/* pasta -f -P: the PID file, while the filesystem is there (a
	 * daemon's parent writes it once we are ready) */
	if (pasta_pid_write(&r->pasta, getpid()))
		return 1;
	stats_open_dir(r, r->conf.stats_file);
	sandbox_prepare(&r->sb, &r->conf, r, &r->edge);
	if (sandbox_enter(&r->sb))
		return 1;
	/* as the flows will bind: with the privileges left */
	if (sock_out_check(&r->conf))
		return 1;
	return 0;
}

/**
 * run_threads() - start the shard, control and migration threads, install
 * the seccomp filter for all of them, and only then release them at one
 * barrier: nothing handles a frame before the filter is in place
 * @r:		run state (@tid set)
 *
 * Return: 0 to go on, 1 on failure (logged)
 */
static int run_threads(struct run *r)
{
	unsigned i;
	int ret;

	/* the shards and the control thread wait for the seccomp filter */
	pthread_barrier_init(&start_barrier, NULL,
			     r->grp.n + (ctl_active(r->ctl) ? 1 : 0) +
				     (mig_active(&r->grp) ? 1 : 0));
	for (i = 1; i < r->grp.n; i++) {
		ret = pthread_create(&r->tid[i], NULL, worker, &r->shs[i]);
		if (ret) {
			errno = ret;
			die_perror("cannot start shard thread");
		}
	}
	if (ctl_start(r->ctl, &start_barrier))
		die("cannot start the control thread");
	if (mig_start(&r->grp, &start_barrier))
		die("cannot start the migration thread");
	if (sandbox_seccomp(&r->sb))
		return 1;
	pthread_barrier_wait(&start_barrier);
	return 0;
}

/**
 * run_ready() - let the command in the new namespace start, and tell
 * whoever waits for us (slirp4netns's ready fd, pasta's parent) that we
 * are ready
 * @r:		run state
 */
static void run_ready(struct run *r)
{
	if (r->ns.cmd_pid > 0 && netns_start_cmd(&r->ns))
		die("cannot start the command");
	s4n_ready(&r->s4n);
	pasta_ready(&r->pasta);
}

/**
 * run_serve() - shard 0's loop, until on_other() or a failure stops it
 * @r:		run state (@exit_code set)
 *
 * A failure is logged, and the command is sent SIGTERM.
 *
 * #syscalls kill
 */
static void run_serve(struct run *r)
{
	int ret = shard_run(&r->shs[0], on_other, r);

	if (!ret)
		return;
	errno = -ret;
	r->exit_code = 1;
	if (ret == -ECONNRESET) {
		info("the guest's connection closed: stopping");
		r->exit_code = 0;
	} else if (ret == -EBADFD || ret == -EIO || ret == -ENXIO) {
		err("the tap device went away (deleted, or its "
		    "namespace): stopping");
	} else {
		err_perror("event loop");
	}
	if (r->ns.cmd_pid > 0)
		kill(r->ns.cmd_pid, SIGTERM);
}

/**
 * run_teardown() - stop the threads, reset the flows left, dump the
 * counters, release everything
 * @r:		run state
 *
 * Return: the status to exit with (@exit_code)
 */
static int run_teardown(struct run *r)
{
	struct shard *sh = &r->shs[0];
	unsigned i;

	/* the control and migration threads first: they may be waiting
	 * for shards */
	mig_stop(&r->grp);
	ctl_stop(r->ctl);
	atomic_store(&r->grp.stop, 1);
	for (i = 1; i < r->grp.n; i++) {
		sh->peers.kick |= 1U << i;
		mbox_kick(sh);
		pthread_join(r->tid[i], NULL);
	}
	ctl_fini(r->ctl);
	for (i = 0; i < r->grp.n; i++) {
		if (r->shs[i].stats.pcap)
			pcap_buf_fini(r->shs[i].stats.pcap);
		r->shs[i].stats.pcap = NULL;
	}
	pcap_close(&r->pcap);
	/* flows cut off by our leaving: their host peers see resets */
	for (i = 0; i < r->grp.n; i++)
		shard_reset_flows(&r->shs[i]);
	mig_fini(&r->grp);
	/* counters only on request (--stats-file, SIGUSR1; the control
	 * socket while running): a one-line summary with -v */
	if (r->conf.stats_file)
		dump_stats(sh, r);
	run_summary(sh);
	fwdauto_fini(sh);
	udpns_fini(sh);
	splice_fini(sh);
	for (i = 0; i < r->grp.n; i++)
		shard_fini(&r->shs[i]);
	r->edge.ops->fini(&r->edge);
	return r->exit_code;
}

/**
 * run_abort() - a start-up failure before any thread runs: remove the
 * control socket (the default one too), then exit 1
 * @r:		run state
 *
 * A failure later, in run_threads(), is rare and leaves a stale socket
 * file (which clients tell apart: nobody answers there).
 *
 * Return: 1
 */
static int run_abort(struct run *r)
{
	ctl_fini(r->ctl);
	r->ctl = NULL;
	return 1;
}

/**
 * main() - slipway: the stages of a run, in their order
 * @argc:	argument count
 * @argv:	arguments
 *
 * The order matters: signals are blocked before any child exists; the
 * repair helper is forked first, as who we are; the namespace and its tap
 * come before the edge, the edge before the shards, everything opened by
 * path before the sandbox, and the seccomp filter before any thread
 * handles a frame.
 *
 * Return: the command's exit status, 1 on failure, 2 on a bad command line
 */
int main(int argc, char **argv)
{
	/* static: the shards and the edge live as long as the process */
	static struct run r = { .ns = { .nsh_fd = -1 }, .pcap = { .fd = -1 } };
	int ret;

	if (argc > 1 && !strcmp(argv[1], "ctl"))
		return ctl_client_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "ls"))
		return ctl_ls_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "top"))
		return ctl_top_main(argc - 1, argv + 1);
	ret = run_parse(&r, argc, argv);
	if (ret)
		return ret;
	run_signals_block(&r);
	/* TCP_REPAIR's capability goes to a process of its own, made while
	 * we still have it, as who we are (before --runas, before any
	 * namespace is joined), with nothing in memory yet but the options */
	if (r.conf.migrate_repair && repair_helper_start(&r.conf))
		return 1;
	if (run_netns(&r) || run_edge(&r))
		return 1;
	nofile_raise();
	if (run_shards(&r) || run_services(&r))
		return run_abort(&r);
	run_watch(&r);
	run_announce(&r);
	if (run_sandbox(&r))
		return run_abort(&r);
	if (run_threads(&r))
		return 1;
	run_ready(&r);
	run_serve(&r);
	return run_teardown(&r);
}
