/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shard_api.c - the control thread's side of the shards (shard_api.h)
 *
 * Readers of single-writer words (counters, histograms, the edge queue)
 * and the asking half of the two request slots of struct shard: a flow
 * table snapshot from any shard (struct flow_snap) and a job for shard 0
 * (struct shard_call). The answering half is loop.c's shard_snap_answer()
 * and shard_call_answer(); each barrier here names its pair there.
 */

#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

#include "shard/shard.h"
#include "shard/shard_api.h"
#include "util/log.h"

/**
 * shard_api_count() - how many shards serve the edge
 * @sh:		shard 0
 *
 * Return: shards in @sh's group (1 without --shards)
 */
unsigned shard_api_count(const struct shard *sh)
{
	return sh->grp->n;
}

/**
 * shard_api_edge_name() - the edge's kind
 * @sh:		shard 0
 *
 * Return: its name (struct edge_ops.name), static
 */
const char *shard_api_edge_name(const struct shard *sh)
{
	return sh->edge->ops->name;
}

/**
 * shard_api_peek_off() - is TCP SO_PEEK_OFF in use?
 * @sh:		shard 0
 *
 * Return: true if so (set at start-up, never changed)
 */
bool shard_api_peek_off(const struct shard *sh)
{
	return sh->sock.peek_off;
}

/**
 * shard_api_ctr() - a shard's counters
 * @sh:		shard 0
 * @k:		shard index, below shard_api_count()
 *
 * Ownership: a loan for the life of the shards. Read them with relaxed
 * loads (the shard writes them: ctl_proto.c's rd(), obs/ctr.c's
 * ctr_read()); the control thread writes only the CTL_* and METRICS_*
 * counters of shard 0, whose single writer it is.
 * Return: CTR_NUM counters
 */
uint64_t *shard_api_ctr(struct shard *sh, unsigned k)
{
	return sh->grp->sh[k]->stats.ctr;
}

/**
 * shard_api_hist() - a shard's histograms
 * @sh:		shard 0
 * @k:		shard index, below shard_api_count()
 *
 * Ownership: a loan for the life of the shards, read with hist_merge()
 * (relaxed loads: the shard writes them)
 * Return: HIST_ID_NUM histograms
 */
const struct hist *shard_api_hist(const struct shard *sh, unsigned k)
{
	return sh->grp->sh[k]->stats.hist;
}

/**
 * shard_api_queue() - the edge queue a shard serves
 * @sh:		shard 0
 * @k:		shard index, below shard_api_count()
 *
 * Return: the queue (set at start-up, never changed)
 */
unsigned shard_api_queue(const struct shard *sh, unsigned k)
{
	return sh->grp->sh[k]->q;
}

/**
 * shard_api_flow_cap() - how many flows a shard can have at most: the
 * room a snapshot buffer needs to hold them all
 * @sh:		shard 0
 * @k:		shard index, below shard_api_count()
 *
 * Return: its TCP flows plus its datagram flows (set at start-up), plus
 *	   what its services can have (shard_hooks.snap: spliced, -U)
 */
uint32_t shard_api_flow_cap(const struct shard *sh, unsigned k)
{
	const struct shard *s = sh->grp->sh[k];
	uint32_t cap = s->max_flows + s->core.conf.max_udp_flows;
	unsigned i;

	for (i = 0; i < SHARD_SNAP_MAX; i++)
		if (shard_hooks.snap[i].cap)
			cap += shard_hooks.snap[i].cap(s);
	return cap;
}

/**
 * shard_api_kick() - wake a shard to look at our requests
 * @sh:		the shard (after shard_api_attach())
 *
 * #syscalls write
 */
static void shard_api_kick(struct shard *sh)
{
	uint64_t one = 1;

	if (write(sh->peers.mbox_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		warn_perror("mailbox kick (control request)");
}

/**
 * shard_api_snap_ask() - ask a shard for a copy of its flow table
 * @sh:		shard 0
 * @k:		shard index, below shard_api_count()
 * @buf:	where the records go, @cap entries
 * @cap:	entries @buf holds
 * @req:	request number, different from the last one asked
 *
 * Ownership: @buf is lent to the shard until shard_api_snap_done() says
 * it answered @req; ask again only after that.
 */
void shard_api_snap_ask(struct shard *sh, unsigned k, struct flow_rec *buf,
			uint32_t cap, unsigned req)
{
	struct shard *s = sh->grp->sh[k];

	s->req.snap.buf = buf;
	s->req.snap.cap = cap;
	/* pairs with the acquire load in shard_snap_answer(): the shard sees
	 * @buf and @cap */
	atomic_store_explicit(&s->req.snap.req, req, memory_order_release);
	shard_api_kick(s);
}

/**
 * shard_api_snap_done() - did a shard answer a snapshot request?
 * @sh:		shard 0
 * @k:		shard index, below shard_api_count()
 * @req:	the request number given to shard_api_snap_ask()
 *
 * Return: true once the records of @req are in the buffer
 */
bool shard_api_snap_done(const struct shard *sh, unsigned k, unsigned req)
{
	/* pairs with the release store in shard_snap_answer(): the records
	 * and their count are visible */
	return atomic_load_explicit(&sh->grp->sh[k]->req.snap.done,
				    memory_order_acquire) == req;
}

/**
 * shard_api_snap_result() - what a shard's answer holds
 * @sh:		shard 0
 * @k:		shard index, below shard_api_count()
 * @total:	out: flows the shard had (more than the records if the
 *		buffer was too small)
 *
 * Context: the control thread, after shard_api_snap_done() returned true
 * Return: records written in the buffer
 */
uint32_t shard_api_snap_result(const struct shard *sh, unsigned k,
			       uint32_t *total)
{
	const struct shard *s = sh->grp->sh[k];

	*total = s->req.snap.total;
	return s->req.snap.n;
}

/**
 * shard_api_call_ask() - have shard 0 run a function at the end of a loop
 * iteration (the forward API of fwd.h is shard 0's)
 * @sh:		shard 0
 * @fn:		what to run, on shard 0's thread: plain data in and out
 *		through @arg, no client I/O
 * @arg:	its argument
 * @req:	request number, different from the last one asked
 *
 * Ownership: @arg is lent to shard 0 until shard_api_call_done() says it
 * ran @req; one call at a time.
 */
void shard_api_call_ask(struct shard *sh,
			void (*fn)(struct shard *sh, void *arg), void *arg,
			unsigned req)
{
	sh->req.call.fn = fn;
	sh->req.call.arg = arg;
	/* pairs with the acquire load in shard_call_answer(): shard 0 sees
	 * @fn, @arg and what @arg points to */
	atomic_store_explicit(&sh->req.call.req, req, memory_order_release);
	shard_api_kick(sh);
}

/**
 * shard_api_call_done() - did shard 0 run a call?
 * @sh:		shard 0
 * @req:	the request number given to shard_api_call_ask()
 *
 * Context: the control thread, or the main thread once the control thread
 * stopped (ctl_fini())
 * Return: true once @fn returned (what it wrote is visible)
 */
bool shard_api_call_done(const struct shard *sh, unsigned req)
{
	/* pairs with the release store in shard_call_answer() */
	return atomic_load_explicit(&sh->req.call.done, memory_order_acquire) ==
	       req;
}

/**
 * shard_api_mig_ask() - have any shard run a function at the end of a
 * loop iteration, for the migration thread (its own slot: the control
 * thread's calls go on meanwhile)
 * @sh:		the shard
 * @fn:		what to run, on @sh's thread
 * @arg:	its argument, lent until shard_api_mig_done()
 * @req:	request number, different from the last one asked
 */
void shard_api_mig_ask(struct shard *sh,
		       void (*fn)(struct shard *sh, void *arg), void *arg,
		       unsigned req)
{
	sh->req.mig.fn = fn;
	sh->req.mig.arg = arg;
	/* pairs with the acquire load in shard_call_answer() */
	atomic_store_explicit(&sh->req.mig.req, req, memory_order_release);
	shard_api_kick(sh);
}

/**
 * shard_api_mig_done() - did a shard run a migration call?
 * @sh:		the shard
 * @req:	the request number given to shard_api_mig_ask()
 *
 * Return: true once @fn returned (what it wrote is visible)
 */
bool shard_api_mig_done(const struct shard *sh, unsigned req)
{
	/* pairs with the release store in shard_call_answer() */
	return atomic_load_explicit(&sh->req.mig.done, memory_order_acquire) ==
	       req;
}

/**
 * shard_api_wake_init() - give every shard the eventfd the control thread
 * kicks to have a request looked at (mbox_kick_fd(): a shard without
 * siblings has none otherwise)
 * @sh:		shard 0
 *
 * Context: start-up, before any thread runs
 * Return: 0, or -errno
 */
int shard_api_wake_init(struct shard *sh)
{
	unsigned i;

	for (i = 0; i < sh->grp->n; i++) {
		int ret = mbox_kick_fd(sh->grp->sh[i]);

		if (ret)
			return ret;
	}
	return 0;
}

/**
 * shard_api_attach() - the shards kick the control thread's eventfd when
 * they answered a request (shard_group.ctl_fd)
 * @sh:		shard 0
 * @evfd:	the control thread's eventfd
 *
 * Context: start-up, before any thread runs, after shard_api_wake_init()
 */
void shard_api_attach(struct shard *sh, int evfd)
{
	sh->grp->ctl_fd = evfd;
}

/**
 * shard_api_detach() - the shards stop kicking the control thread
 * @sh:		shard 0
 * @evfd:	the eventfd shard_api_attach() was given
 *
 * Context: after the control thread stopped
 */
void shard_api_detach(struct shard *sh, int evfd)
{
	if (sh->grp->ctl_fd == evfd)
		sh->grp->ctl_fd = -1;
}

/**
 * shard_api_self_pin() - a listening socket of the control thread's
 * (--metrics) that guest flows must not reach, for the whole run
 * @sh:		shard 0
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @ss:		its address and port
 *
 * Context: start-up, before any thread runs
 */
void shard_api_self_pin(struct shard *sh, int proto,
			const struct sockaddr_storage *ss)
{
	selfport_pin(&sh->grp->self, proto, ss);
}
