/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcp4.c - DHCPv4 server for the one guest (RFC 2131, RFC 2132)
 *
 * DOC: Theory of Operation
 *
 * One guest, no state
 * -------------------
 *
 * There is one guest and one address to give it (conf.dhcp4.addr_be), so
 * the server keeps no lease table and no state at all: every message is
 * answered from the configuration alone. "Lease" times are what the client
 * is told, not something this side tracks or expires.
 *
 * Messages and their answers
 * --------------------------
 *
 * Data flow: udp_input() hands over the UDP payload of a datagram to port
 * 67 at 255.255.255.255 or the gateway. dhcp4_parse() validates the BOOTP
 * fixed header, the magic cookie and the options (length-checked, nothing
 * read before its bounds are checked) into a struct dhcp4_msg; the message
 * type picks the reply, dhcp4_build() writes it into a stack buffer and
 * udp4_send() copies it into a frame slot behind fresh headers.
 *
 *   DISCOVER		-> OFFER (yiaddr = our address)
 *   REQUEST		-> ACK if the address asked for (option 50, else
 *			   ciaddr when renewing or rebinding) is ours or
 *			   absent, else NAK
 *   DECLINE, RELEASE	-> no reply (one address: nothing to take back)
 *   INFORM		-> ACK without yiaddr or lease times
 *
 * Counters
 * --------
 *
 * Counting: each message delivered here moves exactly one counter: the
 * receipt counter of its type (DHCP4_DISCOVER, _REQUEST, _RELEASE,
 * _INFORM), DHCP4_DROP_BAD (malformed: truncated, option running past the
 * end, bad length of an option we read, no or unknown message type) or
 * DHCP4_DROP_IGNORED (well formed but not for us: not a BOOTREQUEST, not
 * Ethernet, not DHCP (cookie), a server identifier that is not ours, a
 * message type a server does not take, and DECLINE, which has no counter
 * of its own). Replies add DHCP4_OFFER, _ACK or _NAK when queued.
 *
 * Limits
 * ------
 *
 * Option overload (52) is ignored: options in 'sname' and 'file'
 * are not read. Relay agents (giaddr) are not served: giaddr is copied,
 * but the reply goes to the client directly. Option 26 (MTU) is sent to
 * every client, asked for in its parameter request list (55) or not, as
 * passt does: busybox's udhcpc does not ask for it by default and would
 * leave the link at 1500 instead of 65520 (--mtu sets a smaller one).
 * Replies are kept within the client's maximum message size (option 57,
 * 576 bytes if absent) and the MTU: the host name (12), the client FQDN
 * (81) and the domain search list (119), in this order, are each left out
 * if they do not fit.
 *
 * Host name and FQDN
 * ------------------
 *
 * Names: option 12 carries conf.dhcp4.hostname to every client, as passt
 * does. Option 81 (RFC 4702) carries conf.dhcp4.fqdn only to a client that
 * sent option 81 or lists 81 in its parameter request list: the option is
 * the server's answer to the client's (passt sends it to every client). It
 * is in the encoding the client used (E bit: wire format, or the
 * deprecated ASCII form), wire format if the client sent none; RCODE1 and
 * RCODE2 are 255 (section 2.2). This server updates no DNS, so S is 0, O
 * is set when the client asked the server to update (its S), and N echoes
 * the client's N.
 */

#include "dhcp4.h"
#include "udp.h"

#define BOOTP_HLEN 236		/* op .. file: the fixed BOOTP header */
#define BOOTP_MIN_LEN 300	/* RFC 1542 2.1: pad replies to this */
#define DHCP4_COOKIE 0x63825363 /* 99.130.83.99 */
#define DHCP4_REPLY_MAX 576	/* RFC 2131: every client takes this much */
#define DHCP4_BUF_LEN 1100	/* stack buffer: the largest reply (1073) */
#define DHCP4_IP_UDP_HLEN 28	/* IPv4 + UDP header bytes in option 57 */

#define BOOTREQUEST 1
#define BOOTREPLY 2
#define BOOTP_FLAG_BROADCAST 0x8000

/* offsets in the fixed header */
#define BOOTP_OP 0
#define BOOTP_HTYPE 1
#define BOOTP_HLEN_OFF 2
#define BOOTP_HOPS 3
#define BOOTP_XID 4
#define BOOTP_SECS 8
#define BOOTP_FLAGS 10
#define BOOTP_CIADDR 12
#define BOOTP_YIADDR 16
#define BOOTP_SIADDR 20
#define BOOTP_GIADDR 24
#define BOOTP_CHADDR 28

/* options (RFC 2132, RFC 3397) */
#define OPT_PAD 0
#define OPT_SUBNET_MASK 1
#define OPT_ROUTER 3
#define OPT_DNS 6
#define OPT_HOSTNAME 12
#define OPT_MTU 26
#define OPT_REQ_ADDR 50
#define OPT_LEASE_TIME 51
#define OPT_OVERLOAD 52
#define OPT_MSG_TYPE 53
#define OPT_SERVER_ID 54
#define OPT_PARAM_REQ 55
#define OPT_MAX_MSG_SIZE 57
#define OPT_T1 58
#define OPT_T2 59
#define OPT_CLIENT_FQDN 81
#define OPT_SEARCH 119
#define OPT_END 255

/* message types (RFC 2132 9.6; 9..20 are later RFCs, all not ours) */
#define DHCPDISCOVER 1
#define DHCPOFFER 2
#define DHCPREQUEST 3
#define DHCPDECLINE 4
#define DHCPACK 5
#define DHCPNAK 6
#define DHCPRELEASE 7
#define DHCPINFORM 8
#define DHCP_TYPE_MAX_ASSIGNED 20

/* option 81 flags (RFC 4702 section 2.1) */
#define FQDN_S 0x01	      /* the server should update the A RR */
#define FQDN_O 0x02	      /* the server overrode the client's S */
#define FQDN_E 0x04	      /* the name is in DNS wire format, not ASCII */
#define FQDN_N 0x08	      /* the server should not update any RR */
#define FQDN_RCODE_SERVER 255 /* RCODE1 and RCODE2 from a server */

/**
 * enum dhcp4_verdict - dhcp4_parse() result, one-to-one with the counters
 * @DHCP4_OK:		well formed, for us
 * @DHCP4_BAD:		malformed: count DHCP4_DROP_BAD
 * @DHCP4_IGNORED:	not for us: count DHCP4_DROP_IGNORED
 * @DHCP4_VERDICT_NUM:	count
 */
enum dhcp4_verdict { DHCP4_OK, DHCP4_BAD, DHCP4_IGNORED, DHCP4_VERDICT_NUM };

/**
 * struct dhcp4_msg - what dhcp4_parse() found in a client message
 * @hdr:		the fixed header, BOOTP_HLEN bytes (a loan into the
 *			rx batch, like the message)
 * @type:		option 53
 * @req_addr_be:	option 50 (valid if @has_req_addr)
 * @server_id_be:	option 54 (valid if @has_server_id)
 * @max_msg_len:	option 57, at least 576 (576 if absent)
 * @has_req_addr:	option 50 present
 * @has_server_id:	option 54 present
 * @want_fqdn:		option 55 lists option 81, or option 81 is present
 * @has_fqdn:		option 81 present (@fqdn_flags valid)
 * @fqdn_flags:		the flags of the client's option 81
 */
struct dhcp4_msg {
	const uint8_t *hdr;
	uint8_t type;
	uint32_t req_addr_be;
	uint32_t server_id_be;
	uint16_t max_msg_len;
	bool has_req_addr;
	bool has_server_id;
	bool want_fqdn;
	bool has_fqdn;
	uint8_t fqdn_flags;
};

/**
 * dhcp4_opt_addr() - read a 4-byte address option, once
 * @val:	option value
 * @len:	its length
 * @seen:	in: the option was seen before; out: set
 * @addr_be:	out: the address
 *
 * A second instance is malformed: RFC 3396 would concatenate the two into
 * an 8-byte value, which is not an address.
 *
 * Return: DHCP4_OK, or DHCP4_BAD for a length other than 4 or a repeat
 */
static enum dhcp4_verdict dhcp4_opt_addr(const uint8_t *val, size_t len,
					 bool *seen, uint32_t *addr_be)
{
	if (len != 4 || *seen)
		return DHCP4_BAD;
	*seen = true;
	memcpy(addr_be, val, 4);
	return DHCP4_OK;
}

/**
 * dhcp4_parse_opts() - walk the options field after the magic cookie
 * @v:		the options (consumed)
 * @m:		message, filled in
 *
 * Pad (0) is skipped and End (255) stops the walk; every other option must
 * have its length byte and value inside the view. Running out of bytes
 * without End is accepted, as most servers do. Options we read must have
 * their fixed length and appear once (53, 50, 54, 57); option 55 may be
 * split over several instances (RFC 3396), so each one is scanned. Of
 * option 81 only the flags of the first instance are read (an empty one
 * counts as wire format asked for).
 *
 * Return: DHCP4_OK, or DHCP4_BAD
 */
static enum dhcp4_verdict dhcp4_parse_opts(struct pkt_view v,
					   struct dhcp4_msg *m)
{
	bool seen_type = false, seen_max = false;
	enum dhcp4_verdict r = DHCP4_OK;
	const uint8_t *p, *val;
	size_t i;

	while ((p = pkt_pull(&v, 1))) {
		uint8_t code = p[0], len;

		if (code == OPT_PAD)
			continue;
		if (code == OPT_END)
			break;
		p = pkt_pull(&v, 1);
		if (!p)
			return DHCP4_BAD;
		len = p[0];
		val = pkt_pull(&v, len);
		if (!val)
			return DHCP4_BAD;

		switch (code) {
		case OPT_MSG_TYPE:
			if (len != 1 || seen_type)
				return DHCP4_BAD;
			seen_type = true;
			m->type = val[0];
			break;
		case OPT_REQ_ADDR:
			r = dhcp4_opt_addr(val, len, &m->has_req_addr,
					   &m->req_addr_be);
			break;
		case OPT_SERVER_ID:
			r = dhcp4_opt_addr(val, len, &m->has_server_id,
					   &m->server_id_be);
			break;
		case OPT_MAX_MSG_SIZE:
			if (len != 2 || seen_max)
				return DHCP4_BAD;
			seen_max = true;
			m->max_msg_len = (uint16_t)MAX(rd16(val),
						       DHCP4_REPLY_MAX);
			break;
		case OPT_PARAM_REQ:
			for (i = 0; i < len; i++)
				m->want_fqdn |= val[i] == OPT_CLIENT_FQDN;
			break;
		case OPT_CLIENT_FQDN:
			if (!m->has_fqdn)
				m->fqdn_flags = len ? val[0] : FQDN_E;
			m->has_fqdn = m->want_fqdn = true;
			break;
		default: /* including OPT_OVERLOAD: see the DOC above */
			break;
		}
		if (r != DHCP4_OK)
			return r;
	}
	return seen_type ? DHCP4_OK : DHCP4_BAD;
}

/**
 * dhcp4_parse() - validate a client message
 * @c:		core (our server identifier)
 * @msg:	the UDP payload, a loan
 * @m:		out: what was found (@m->hdr points into @msg)
 *
 * Return: DHCP4_OK for a message to answer (or to count and not answer:
 *	   RELEASE), DHCP4_BAD if malformed, DHCP4_IGNORED if not for us
 */
static enum dhcp4_verdict dhcp4_parse(const struct core *c, struct pkt_view msg,
				      struct dhcp4_msg *m)
{
	const uint8_t *cookie;
	enum dhcp4_verdict r;

	memset(m, 0, sizeof(*m));
	m->max_msg_len = DHCP4_REPLY_MAX;
	m->hdr = pkt_pull(&msg, BOOTP_HLEN);
	if (!m->hdr)
		return DHCP4_BAD;
	if (m->hdr[BOOTP_OP] != BOOTREQUEST || m->hdr[BOOTP_HTYPE] != 1 ||
	    m->hdr[BOOTP_HLEN_OFF] != ETH_ALEN)
		return DHCP4_IGNORED;
	cookie = pkt_pull(&msg, 4);
	if (!cookie)
		return DHCP4_BAD;
	if (rd32(cookie) != DHCP4_COOKIE)
		return DHCP4_IGNORED; /* plain BOOTP, not DHCP */

	r = dhcp4_parse_opts(msg, m);
	if (r != DHCP4_OK)
		return r;

	switch (m->type) {
	case DHCPDISCOVER:
	case DHCPREQUEST:
	case DHCPDECLINE:
	case DHCPRELEASE:
	case DHCPINFORM:
		break;
	default:
		/* assigned but not a client-to-server message we serve
		 * (OFFER, ACK, NAK, FORCERENEW, lease queries): not for us;
		 * unassigned: malformed */
		if (m->type == 0 || m->type > DHCP_TYPE_MAX_ASSIGNED)
			return DHCP4_BAD;
		return DHCP4_IGNORED;
	}
	if (m->has_server_id && m->server_id_be != c->conf.dhcp4.server_be)
		return DHCP4_IGNORED; /* the client chose another server */
	if (m->type == DHCPDECLINE)
		return DHCP4_IGNORED; /* nothing to do: one address */
	return DHCP4_OK;
}

/**
 * dhcp4_opt_put() - append one option to a reply being built
 * @p:		where the option goes
 * @code:	option code
 * @val:	value
 * @len:	value length, at most 255
 *
 * Return: bytes written (2 + @len)
 */
static size_t dhcp4_opt_put(uint8_t *p, uint8_t code, const void *val,
			    size_t len)
{
	ASSERT(len <= 255);
	p[0] = code;
	p[1] = (uint8_t)len;
	memcpy(p + 2, val, len);
	return 2 + len;
}

/**
 * dhcp4_opt_put32() - append an option holding one 32-bit number
 * @p:		where the option goes
 * @code:	option code
 * @v:		host-order value
 *
 * Return: bytes written (6)
 */
static size_t dhcp4_opt_put32(uint8_t *p, uint8_t code, uint32_t v)
{
	uint8_t b[4];

	wr32(b, v);
	return dhcp4_opt_put(p, code, b, 4);
}

/**
 * dhcp4_search_len() - bytes the domain search option takes in a reply
 * @d:	DHCP configuration
 *
 * Longer than 255 bytes, the list is split over consecutive instances of
 * option 119 (RFC 3396).
 *
 * Return: option bytes, 0 if there is no search list
 */
static size_t dhcp4_search_len(const struct dhcp4_conf *d)
{
	size_t len = MIN(d->search_len, sizeof(d->search));

	return len ? len + 2 * ((len + 254) / 255) : 0;
}

/**
 * dhcp4_fqdn_ascii() - does the client want option 81 in ASCII?
 * @m:		the client's message
 *
 * Return: true if it sent option 81 with the E bit clear (RFC 4702 section
 *	   4: the server answers in the client's encoding)
 */
static bool dhcp4_fqdn_ascii(const struct dhcp4_msg *m)
{
	return m->has_fqdn && !(m->fqdn_flags & FQDN_E);
}

/**
 * dhcp4_fqdn_len() - bytes option 81 takes in a reply to this client
 * @d:		DHCP configuration
 * @m:		the client's message
 *
 * Return: option bytes (code, length, flags, RCODEs, name), 0 if there is
 *	   no name, it is too long for the option or the client did not ask
 *	   for it
 */
static size_t dhcp4_fqdn_len(const struct dhcp4_conf *d,
			     const struct dhcp4_msg *m)
{
	size_t len = MIN(d->fqdn_len, sizeof(d->fqdn));

	/* the flags and RCODEs leave 252 bytes of the 255 for the name */
	if (len < 2 || len > 255 - 3 || !m->want_fqdn)
		return 0;
	/* ASCII: the labels without the first length byte and the root */
	return 2 + 3 + (dhcp4_fqdn_ascii(m) ? len - 2 : len);
}

/**
 * dhcp4_put_fqdn() - append option 81 (RFC 4702)
 * @p:		where the option goes, dhcp4_fqdn_len() bytes
 * @d:		DHCP configuration (the name, wire format)
 * @m:		the client's message (its flags, the encoding it wants)
 *
 * Flags: E as the client's (set if it sent no option 81); S clear, as
 * this server updates no DNS; O set if that overrides the client's S; N
 * as the client's. RCODE1 and RCODE2 are 255. In ASCII, each label's
 * length byte but the first becomes a dot and the root label goes.
 *
 * Return: bytes written
 */
static size_t dhcp4_put_fqdn(uint8_t *p, const struct dhcp4_conf *d,
			     const struct dhcp4_msg *m)
{
	size_t len = dhcp4_fqdn_len(d, m), i, next;
	uint8_t flags = m->has_fqdn ? m->fqdn_flags : FQDN_E;
	uint8_t *name = p + 5;

	p[0] = OPT_CLIENT_FQDN;
	p[1] = (uint8_t)(len - 2);
	p[2] = (uint8_t)((flags & (FQDN_E | FQDN_N)) |
			 (flags & FQDN_S ? FQDN_O : 0));
	p[3] = p[4] = FQDN_RCODE_SERVER;
	if (!dhcp4_fqdn_ascii(m)) {
		memcpy(name, d->fqdn, len - 5);
		return len;
	}
	memcpy(name, d->fqdn + 1, len - 5);
	/* labels were checked when configured: each length byte leads to
	 * the next, and the name ends where the root label was */
	for (i = d->fqdn[0]; i < len - 5; i = next) {
		next = i + 1 + name[i];
		name[i] = '.';
	}
	return len;
}

/**
 * dhcp4_build() - write a reply in the caller's buffer
 * @c:		core (conf.dhcp4: what to hand out)
 * @m:		the client's message
 * @type:	DHCPOFFER, DHCPACK or DHCPNAK
 * @buf:	DHCP4_BUF_LEN bytes
 *
 * The fields follow RFC 2131 table 3: xid, flags, giaddr and chaddr are
 * the client's; yiaddr is ours except for INFORM and NAK; ciaddr is echoed
 * in ACKs. A NAK carries only the message type and server identifier. An
 * INFORM's ACK has no lease times. The reply is padded to 300 bytes
 * (RFC 1542) and never exceeds the client's maximum message size or the
 * MTU: the host name, the FQDN and the search list go in only if they fit.
 *
 * Return: reply length
 */
static size_t dhcp4_build(const struct core *c, const struct dhcp4_msg *m,
			  uint8_t type, uint8_t *buf)
{
	const struct dhcp4_conf *d = &c->conf.dhcp4;
	size_t ip_max = MIN((size_t)m->max_msg_len,
			    MAX((size_t)c->conf.mtu, (size_t)DHCP4_REPLY_MAX));
	size_t limit = MIN(ip_max - DHCP4_IP_UDP_HLEN, (size_t)DHCP4_BUF_LEN);
	size_t hlen = MIN(d->hostname_len, sizeof(d->hostname));
	bool lease = type != DHCPNAK && m->type != DHCPINFORM;
	uint8_t *p = buf + BOOTP_HLEN;
	unsigned ndns = MIN(d->ndns, ARRAY_SIZE(d->dns_be));
	size_t len;

	memset(buf, 0, DHCP4_BUF_LEN);
	buf[BOOTP_OP] = BOOTREPLY;
	buf[BOOTP_HTYPE] = 1;
	buf[BOOTP_HLEN_OFF] = ETH_ALEN;
	memcpy(buf + BOOTP_XID, m->hdr + BOOTP_XID, 4);
	memcpy(buf + BOOTP_FLAGS, m->hdr + BOOTP_FLAGS, 2);
	if (type == DHCPACK)
		memcpy(buf + BOOTP_CIADDR, m->hdr + BOOTP_CIADDR, 4);
	if (lease)
		memcpy(buf + BOOTP_YIADDR, &d->addr_be, 4);
	memcpy(buf + BOOTP_GIADDR, m->hdr + BOOTP_GIADDR, 4);
	memcpy(buf + BOOTP_CHADDR, m->hdr + BOOTP_CHADDR, 16);

	wr32(p, DHCP4_COOKIE);
	p += 4;
	p += dhcp4_opt_put(p, OPT_MSG_TYPE, &type, 1);
	p += dhcp4_opt_put(p, OPT_SERVER_ID, &d->server_be, 4);
	if (type == DHCPNAK)
		goto end;
	if (lease) {
		p += dhcp4_opt_put32(p, OPT_LEASE_TIME, d->lease_s);
		if (d->lease_s != UINT32_MAX) { /* infinite: no renewal */
			p += dhcp4_opt_put32(p, OPT_T1, d->lease_s / 2);
			p += dhcp4_opt_put32(
				p, OPT_T2,
				(uint32_t)((uint64_t)d->lease_s * 7 / 8));
		}
	}
	p += dhcp4_opt_put(p, OPT_SUBNET_MASK, &d->mask_be, 4);
	if (d->router_be)
		p += dhcp4_opt_put(p, OPT_ROUTER, &d->router_be, 4);
	if (ndns)
		p += dhcp4_opt_put(p, OPT_DNS, d->dns_be, 4 * (size_t)ndns);
	if (d->mtu) {
		uint8_t b[2];

		wr16(b, d->mtu);
		p += dhcp4_opt_put(p, OPT_MTU, b, 2);
	}
	/* names and the search list can make a reply large: leave them
	 * out rather than exceed what the client takes (1 byte: End) */
	if (hlen && (size_t)(p - buf) + 2 + hlen + 1 <= limit)
		p += dhcp4_opt_put(p, OPT_HOSTNAME, d->hostname, hlen);
	if (dhcp4_fqdn_len(d, m) &&
	    (size_t)(p - buf) + dhcp4_fqdn_len(d, m) + 1 <= limit)
		p += dhcp4_put_fqdn(p, d, m);
	if (dhcp4_search_len(d) &&
	    (size_t)(p - buf) + dhcp4_search_len(d) + 1 <= limit) {
		size_t left = MIN(d->search_len, sizeof(d->search)), off = 0;

		while (left) {
			size_t n = MIN(left, (size_t)255);

			p += dhcp4_opt_put(p, OPT_SEARCH, d->search + off, n);
			off += n;
			left -= n;
		}
	}
end:
	*p++ = OPT_END;
	len = (size_t)(p - buf);
	ASSERT(len <= DHCP4_BUF_LEN);
	return MAX(len, (size_t)BOOTP_MIN_LEN);
}

/**
 * dhcp4_reply() - build a reply and queue it for the client
 * @c:		core
 * @m:		the client's message
 * @type:	DHCPOFFER, DHCPACK or DHCPNAK
 * @fx:		effects out
 *
 * Destination (RFC 2131 4.1): a NAK, a client that set the broadcast flag
 * or one without an address yet (ciaddr 0) gets 255.255.255.255, sent to
 * the broadcast MAC; otherwise ciaddr. Source: the server identifier, port
 * 67. The reply counter moves only if the frame was queued.
 */
static void dhcp4_reply(struct core *c, const struct dhcp4_msg *m, uint8_t type,
			struct fx *fx)
{
	uint32_t dst_be = 0xffffffffU, ciaddr_be;
	uint8_t buf[DHCP4_BUF_LEN];
	size_t len;

	memcpy(&ciaddr_be, m->hdr + BOOTP_CIADDR, 4);
	if (type != DHCPNAK && ciaddr_be &&
	    !(rd16(m->hdr + BOOTP_FLAGS) & BOOTP_FLAG_BROADCAST))
		dst_be = ciaddr_be;
	len = dhcp4_build(c, m, type, buf);
	if (udp4_send(c, fx, c->conf.dhcp4.server_be, DHCP4_SERVER_PORT, dst_be,
		      DHCP4_CLIENT_PORT, buf, len))
		return; /* counted by udp4_send() */
	switch (type) {
	case DHCPOFFER:
		CTR_INC(c, DHCP4_OFFER);
		break;
	case DHCPACK:
		CTR_INC(c, DHCP4_ACK);
		break;
	default:
		CTR_INC(c, DHCP4_NAK);
		break;
	}
}

/**
 * dhcp4_request_ok() - may the client have the address it asks for?
 * @c:	core
 * @m:	a REQUEST
 *
 * The address asked for is option 50 (SELECTING, INIT-REBOOT) or, without
 * it, ciaddr (RENEWING, REBINDING); a REQUEST naming neither gets ours.
 *
 * Return: true to ACK, false to NAK
 */
static bool dhcp4_request_ok(const struct core *c, const struct dhcp4_msg *m)
{
	uint32_t want_be;

	if (m->has_req_addr)
		want_be = m->req_addr_be;
	else
		memcpy(&want_be, m->hdr + BOOTP_CIADDR, 4);
	return !want_be || want_be == c->conf.dhcp4.addr_be;
}

/**
 * dhcp4_input() - answer a DHCPv4 client message
 * @c:		core (conf.dhcp4 says what to offer; counters; frames)
 * @iph:	the request's IPv4 header (unused: the BOOTP header says
 *		everything the reply needs)
 * @msg:	the UDP payload (a BOOTP message), a loan
 * @fx:		effects out: at most one reply frame
 *
 * Context: the owning shard, from udp_input() when conf.dhcp is on.
 */
void dhcp4_input(struct core *c, const uint8_t *iph, struct pkt_view msg,
		 struct fx *fx)
{
	struct dhcp4_msg m;

	(void)iph;
	switch (dhcp4_parse(c, msg, &m)) {
	case DHCP4_OK:
		break;
	case DHCP4_BAD:
		CTR_INC(c, DHCP4_DROP_BAD);
		return;
	default:
		CTR_INC(c, DHCP4_DROP_IGNORED);
		return;
	}

	switch (m.type) {
	case DHCPDISCOVER:
		CTR_INC(c, DHCP4_DISCOVER);
		dhcp4_reply(c, &m, DHCPOFFER, fx);
		break;
	case DHCPREQUEST:
		CTR_INC(c, DHCP4_REQUEST);
		dhcp4_reply(c, &m, dhcp4_request_ok(c, &m) ? DHCPACK : DHCPNAK,
			    fx);
		break;
	case DHCPINFORM:
		CTR_INC(c, DHCP4_INFORM);
		dhcp4_reply(c, &m, DHCPACK, fx);
		break;
	case DHCPRELEASE:
		CTR_INC(c, DHCP4_RELEASE);
		break;
	default: /* dhcp4_parse() lets no other type through */
		ASSERT(0);
	}
}
