/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcp6.c - DHCPv6 server for the one guest (RFC 8415 subset, RFC 3646)
 *
 * DOC: Theory of Operation
 *
 * One guest, no state
 * -------------------
 *
 * As in dhcp4.c, there is one guest and one address to give it
 * (conf.guest6), so the server keeps no bindings and no state at all: every
 * message is answered from the configuration alone, on whichever shard it
 * arrives. The first IA_NA of a client's message is "the" binding and gets
 * the address; every later IA (another IA_NA, an IA_TA, an IA_PD) gets a
 * status code and nothing else. Lifetimes (preferred 3600 s, valid 7200 s;
 * T1 1800 s and T2 2880 s, 0.5 and 0.8 times the preferred lifetime as RFC
 * 8415 section 21.4 recommends) are what the client is told, not something
 * this side tracks or expires.
 *
 * Messages and their answers
 * --------------------------
 *
 * Data flow: the IPv6 input asks dhcp6_for_us() about each UDP datagram and
 * hands the payload of those for port 547 at ff02::1:2 or at a gateway
 * address to dhcp6_input(). dhcp6_parse() validates the header, every
 * option's length against the message, the options nested in IA_NA, IA_TA
 * and IA_PD and in their IAADDR and IAPREFIX options down to the last byte
 * (nothing is read before its bounds are checked), then the rules of
 * section 16 for the message type, into a struct dhcp6_msg. dhcp6_reply()
 * builds the answer in a stack buffer and udp6_send() (udp.c) copies it
 * into a frame slot behind fresh IPv6 and UDP headers.
 *
 *   SOLICIT		-> ADVERTISE with Preference 255 (the client need
 *			   not wait for other servers), or REPLY with Rapid
 *			   Commit if the client sent Rapid Commit; without
 *			   any IA_NA, an ADVERTISE with only the status
 *			   NoAddrsAvail (section 18.3.1)
 *   REQUEST		-> REPLY, the address in the first IA_NA
 *   RENEW, REBIND	-> REPLY, the address in the first IA_NA, with every
 *			   other address the client listed there at
 *			   lifetimes 0 (not ours: the client drops it);
 *			   later IAs get NoBinding
 *   CONFIRM		-> REPLY with Success if every address listed is the
 *			   guest's, else NotOnLink (the client then starts
 *			   over with SOLICIT and gets the right one); no
 *			   reply if none is listed (section 18.3.3)
 *   RELEASE, DECLINE	-> REPLY with Success (one address: nothing to take
 *			   back or to set aside)
 *   INFORMATION-REQUEST -> REPLY without IAs
 *
 * Options in replies
 * ------------------
 *
 * Every ADVERTISE and REPLY carries our Server Identifier (a DUID-LL made
 * of our MAC address, stable for as long as the MAC is) and the client's
 * Client Identifier. Those that hand out configuration also carry the DNS
 * Recursive Name Server option (23) with conf.dns6 unless it is ::, and the
 * Domain Search List option (24) with conf.dhcp4.search unless it is
 * empty, whether the client's Option Request lists them or not (section
 * 18.3 lets a server return options it is configured to). The search list
 * must be in uncompressed wire format (RFC 3646, as for RFC 8106's DNSSL):
 * main.c writes it so. They also carry the Client FQDN option (39, RFC
 * 4704) with conf.dhcp4.fqdn, but only to a client that sent one or lists
 * 39 in its Option Request (passt sends it to every client): flags S and
 * N clear, as this server updates no DNS, and O set if the client's S asked
 * it to. It goes last and is left out if the reply would outgrow its
 * buffer.
 *
 * Counters
 * --------
 *
 * Counting: each message given to dhcp6_input() moves exactly one
 * counter: the receipt counter of its type (DHCP6_SOLICIT, _REQUEST,
 * _CONFIRM, _RENEW, _REBIND, _RELEASE, _DECLINE, _INFO_REQUEST),
 * DHCP6_DROP_BAD (malformed: shorter than its header, an option or a nested
 * option running past its container, a bad length of an option we read, a
 * repeated identifier, an unassigned message type, or against section 16:
 * no Client Identifier, a Server Identifier missing where it must be or
 * present where it must not, an IA in an INFORMATION-REQUEST) or
 * DHCP6_DROP_IGNORED (well formed but not for us: the server is off, a
 * message type servers do not take (ADVERTISE, REPLY, RECONFIGURE, relay
 * and lease query messages), another server's identifier, a message that
 * must be multicast sent to our unicast address, more than DHCP6_MAX_IAS
 * IAs, or a source address of ::, which cannot be answered). Replies add
 * DHCP6_ADVERTISE or DHCP6_REPLIES when queued.
 *
 * Limits
 * ------
 *
 * No relay agents (RELAY-FORW is ignored), no prefix delegation
 * (IA_PD gets NoPrefixAvail), no temporary addresses (IA_TA gets
 * NoAddrsAvail), no authentication, no Reconfigure. REQUEST, RENEW,
 * RELEASE and DECLINE sent to our unicast addresses are answered although
 * we never sent a Server Unicast option, instead of getting UseMulticast
 * (section 18.3.2): the gateway is on the link and there is no other
 * server to reach. Incoming UDP checksums are not verified (docs/design.md).
 */

#include "dhcp6.h"
#include "csum.h"
#include "udp.h"

#define DHCP6_HLEN 4	     /* msg-type, transaction-id */
#define DHCP6_OPT_HLEN 4     /* option-code, option-len */
#define DHCP6_REPLY_MAX 1232 /* IPv6 minimum MTU - IPv6, UDP headers */
#define DHCP6_MAX_IAS 8	     /* IA options answered in one message */
#define DHCP6_MAX_ZEROED 8   /* client addresses returned at lifetime 0 */

#define DHCP6_DUID_MIN 3     /* type code and at least one byte */
#define DHCP6_DUID_MAX 130   /* type code and at most 128 bytes */
#define DHCP6_DUID_LL 3	     /* DUID based on link-layer address */
#define DHCP6_DUID_LL_LEN 10 /* type, hardware type, MAC */
#define DHCP6_HWTYPE_ETHER 1

#define DHCP6_PREFERRED_S 3600
#define DHCP6_VALID_S 7200
#define DHCP6_T1_S (DHCP6_PREFERRED_S / 2)
#define DHCP6_T2_S (DHCP6_PREFERRED_S * 4 / 5)
#define DHCP6_PREFERENCE_MAX 255

/* message types (RFC 8415 section 7.3; 14..37 are later RFCs, up to 9686) */
#define DH6_SOLICIT 1
#define DH6_ADVERTISE 2
#define DH6_REQUEST 3
#define DH6_CONFIRM 4
#define DH6_RENEW 5
#define DH6_REBIND 6
#define DH6_REPLY 7
#define DH6_RELEASE 8
#define DH6_DECLINE 9
#define DH6_INFORMATION_REQUEST 11
#define DH6_TYPE_MAX_ASSIGNED 37

/* options (section 21; 23 and 24 from RFC 3646) */
#define OPT6_CLIENTID 1
#define OPT6_SERVERID 2
#define OPT6_IA_NA 3
#define OPT6_IA_TA 4
#define OPT6_IAADDR 5
#define OPT6_ORO 6
#define OPT6_PREFERENCE 7
#define OPT6_ELAPSED_TIME 8
#define OPT6_STATUS_CODE 13
#define OPT6_RAPID_COMMIT 14
#define OPT6_DNS_SERVERS 23
#define OPT6_DOMAIN_LIST 24
#define OPT6_IA_PD 25
#define OPT6_IAPREFIX 26
#define OPT6_CLIENT_FQDN 39

/* Client FQDN flags (RFC 4704 section 4.1) */
#define FQDN6_S 0x01 /* the server should update the AAAA RR */
#define FQDN6_O 0x02 /* the server overrode the client's S */

#define IA_NA_FIXED_LEN 12    /* IAID, T1, T2 (IA_PD: the same) */
#define IA_TA_FIXED_LEN 4     /* IAID */
#define IAADDR_FIXED_LEN 24   /* address, preferred, valid lifetime */
#define IAPREFIX_FIXED_LEN 25 /* lifetimes, prefix length, prefix */

/* status codes (section 21.13) */
#define STATUS6_SUCCESS 0
#define STATUS6_NOADDRSAVAIL 2
#define STATUS6_NOBINDING 3
#define STATUS6_NOTONLINK 4
#define STATUS6_NOPREFIXAVAIL 6

/**
 * enum dhcp6_verdict - dhcp6_parse() result, one-to-one with the counters
 * @DHCP6_OK:		well formed, for us
 * @DHCP6_BAD:		malformed: count DHCP6_DROP_BAD
 * @DHCP6_IGNORED:	not for us: count DHCP6_DROP_IGNORED
 * @DHCP6_VERDICT_NUM:	count
 */
enum dhcp6_verdict { DHCP6_OK, DHCP6_BAD, DHCP6_IGNORED, DHCP6_VERDICT_NUM };

/**
 * struct dhcp6_ia - one IA option of a client message
 * @code:	OPT6_IA_NA, OPT6_IA_TA or OPT6_IA_PD
 * @v:		its value, IAID first, checked down to the nested options
 *		(a loan into the rx batch, like the message)
 */
struct dhcp6_ia {
	uint16_t code;
	struct pkt_view v;
};

/**
 * struct dhcp6_msg - what dhcp6_parse() found in a client message
 * @type:		message type
 * @xid:		transaction ID, 3 bytes (a loan into the rx batch)
 * @src:		the client's address (the IPv6 source), 16 bytes
 * @dst:		the address it was sent to, 16 bytes
 * @client_id:		Client Identifier value (if @has_client_id)
 * @server_id:		Server Identifier value (if @has_server_id)
 * @has_client_id:	Client Identifier present
 * @has_server_id:	Server Identifier present
 * @rapid_commit:	Rapid Commit present
 * @want_fqdn:		Client FQDN present, or listed in the Option
 *			Request
 * @fqdn_flags:		flags of the client's (first) Client FQDN, 0 if
 *			none
 * @ia:			IA options, in message order
 * @nia:		entries in @ia
 * @first_na:		index of the first IA_NA in @ia, -1 if none
 */
struct dhcp6_msg {
	uint8_t type;
	const uint8_t *xid;
	const uint8_t *src;
	const uint8_t *dst;
	struct pkt_view client_id;
	struct pkt_view server_id;
	bool has_client_id;
	bool has_server_id;
	bool rapid_commit;
	bool want_fqdn;
	uint8_t fqdn_flags;
	struct dhcp6_ia ia[DHCP6_MAX_IAS];
	unsigned nia;
	int first_na;
};

/**
 * struct dhcp6_out - a reply being built
 * @buf:	the message
 * @len:	bytes written
 */
struct dhcp6_out {
	uint8_t buf[DHCP6_REPLY_MAX];
	size_t len;
};

/**
 * dhcp6_all_servers - All_DHCP_Relay_Agents_and_Servers, ff02::1:2
 */
static const uint8_t dhcp6_all_servers[16] = { 0xff,
					       0x02, [13] = 0x01, [15] = 0x02 };

/**
 * dhcp6_opt_pull() - take the next option from a view of options
 * @v:		options, advanced past the option on success
 * @code:	out: option code
 * @val:	out: option value
 *
 * Return: 0, or -1 if the option's header or value runs past the end
 */
static int dhcp6_opt_pull(struct pkt_view *v, uint16_t *code,
			  struct pkt_view *val)
{
	struct pkt_view w = *v;
	const uint8_t *h = pkt_pull(&w, DHCP6_OPT_HLEN);

	if (!h)
		return -1;
	*val = (struct pkt_view){ .len = rd16(h + 2) };
	val->p = pkt_pull(&w, val->len);
	if (!val->p)
		return -1;
	*code = rd16(h);
	*v = w;
	return 0;
}

/**
 * dhcp6_tail() - the part of an option value after its fixed fields
 * @v:		value, at least @off bytes long (checked by the caller)
 * @off:	bytes of fixed fields
 *
 * Return: the view of the options nested after them
 */
static struct pkt_view dhcp6_tail(struct pkt_view v, size_t off)
{
	ASSERT(off <= v.len);
	v.p += off;
	v.len -= off;
	return v;
}

/**
 * dhcp6_nested_ok() - check the options nested in an IA (or deeper)
 * @v:		the nested options
 * @in_ia:	true directly inside an IA: IAADDR and IAPREFIX there are
 *		checked down to their own nested options; deeper, only
 *		lengths are
 *
 * Return: true if every option fits its container, an IAADDR has its 24
 *	   bytes of fixed fields, an IAPREFIX its 25, a Status Code its code
 */
static bool dhcp6_nested_ok(struct pkt_view v, bool in_ia)
{
	struct pkt_view val;
	uint16_t code;

	while (v.len) {
		if (dhcp6_opt_pull(&v, &code, &val))
			return false;
		switch (code) {
		case OPT6_IAADDR:
			if (in_ia &&
			    (val.len < IAADDR_FIXED_LEN ||
			     !dhcp6_nested_ok(dhcp6_tail(val, IAADDR_FIXED_LEN),
					      false)))
				return false;
			break;
		case OPT6_IAPREFIX:
			if (in_ia &&
			    (val.len < IAPREFIX_FIXED_LEN ||
			     !dhcp6_nested_ok(dhcp6_tail(val,
							 IAPREFIX_FIXED_LEN),
					      false)))
				return false;
			break;
		case OPT6_STATUS_CODE:
			if (val.len < 2)
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

/**
 * dhcp6_ia_fixed_len() - bytes of fixed fields of an IA option
 * @code:	OPT6_IA_NA, OPT6_IA_TA or OPT6_IA_PD
 *
 * Return: 12 (IAID, T1, T2) or 4 (IA_TA: IAID)
 */
static size_t dhcp6_ia_fixed_len(uint16_t code)
{
	return code == OPT6_IA_TA ? IA_TA_FIXED_LEN : IA_NA_FIXED_LEN;
}

/**
 * dhcp6_duid_ok() - is an identifier option's value a plausible DUID?
 * @v:		the value
 *
 * Return: true for 3 to 130 bytes (a type code and 1 to 128 bytes,
 *	   section 11.1)
 */
static bool dhcp6_duid_ok(struct pkt_view v)
{
	return v.len >= DHCP6_DUID_MIN && v.len <= DHCP6_DUID_MAX;
}

/**
 * dhcp6_server_duid() - our Server Identifier: DUID-LL of our MAC address
 * @c:		core
 * @out:	DHCP6_DUID_LL_LEN bytes
 */
static void dhcp6_server_duid(const struct core *c, uint8_t *out)
{
	wr16(out, DHCP6_DUID_LL);
	wr16(out + 2, DHCP6_HWTYPE_ETHER);
	memcpy(out + 4, c->conf.our_mac, ETH_ALEN);
}

/**
 * dhcp6_parse_opts() - walk the options of a client message
 * @v:		the options (after the 4-byte header)
 * @m:		message, filled in
 * @too_many:	out: more than DHCP6_MAX_IAS IA options
 *
 * Every option must fit the message. Options we read must have their
 * length: identifiers 3 to 130 bytes and once each, IA_NA and IA_PD at
 * least 12 bytes, IA_TA 4, with their nested options fitting them (see
 * dhcp6_nested_ok()), an Option Request an even length, Elapsed Time 2
 * bytes, Rapid Commit none. Other options are skipped; of a Client FQDN,
 * only the flags are read, if there are any.
 *
 * Return: DHCP6_OK, or DHCP6_BAD
 */
static enum dhcp6_verdict dhcp6_parse_opts(struct pkt_view v,
					   struct dhcp6_msg *m, bool *too_many)
{
	bool seen_fqdn = false;
	struct pkt_view val;
	uint16_t code;
	size_t fixed, i;

	while (v.len) {
		if (dhcp6_opt_pull(&v, &code, &val))
			return DHCP6_BAD;
		switch (code) {
		case OPT6_CLIENTID:
			if (m->has_client_id || !dhcp6_duid_ok(val))
				return DHCP6_BAD;
			m->has_client_id = true;
			m->client_id = val;
			break;
		case OPT6_SERVERID:
			if (m->has_server_id || !dhcp6_duid_ok(val))
				return DHCP6_BAD;
			m->has_server_id = true;
			m->server_id = val;
			break;
		case OPT6_IA_NA:
		case OPT6_IA_TA:
		case OPT6_IA_PD:
			fixed = dhcp6_ia_fixed_len(code);
			if (val.len < fixed ||
			    !dhcp6_nested_ok(dhcp6_tail(val, fixed), true))
				return DHCP6_BAD;
			if (m->nia == DHCP6_MAX_IAS) {
				*too_many = true;
				break;
			}
			if (code == OPT6_IA_NA && m->first_na < 0)
				m->first_na = (int)m->nia;
			m->ia[m->nia].code = code;
			m->ia[m->nia].v = val;
			m->nia++;
			break;
		case OPT6_ORO:
			if (val.len & 1)
				return DHCP6_BAD;
			for (i = 0; i < val.len; i += 2)
				m->want_fqdn |= rd16(val.p + i) ==
						OPT6_CLIENT_FQDN;
			break;
		case OPT6_CLIENT_FQDN:
			if (!seen_fqdn && val.len)
				m->fqdn_flags = val.p[0];
			seen_fqdn = m->want_fqdn = true;
			break;
		case OPT6_ELAPSED_TIME:
			if (val.len != 2)
				return DHCP6_BAD;
			break;
		case OPT6_RAPID_COMMIT:
			if (val.len)
				return DHCP6_BAD;
			m->rapid_commit = true;
			break;
		default:
			break;
		}
	}
	return DHCP6_OK;
}

/**
 * dhcp6_parse() - validate a client message
 * @c:		core (our server identifier)
 * @ip6h:	the message's IPv6 header
 * @msg:	the UDP payload, a loan
 * @m:		out: what was found (pointers into @msg and @ip6h)
 *
 * The message type is looked at before the options: relay messages have
 * another header, and servers' messages are not ours to read. Then the
 * options, then section 16's rules for the type: a Client Identifier in
 * all but INFORMATION-REQUEST; a Server Identifier in REQUEST, RENEW,
 * RELEASE and DECLINE, none in SOLICIT, CONFIRM and REBIND; no IA in an
 * INFORMATION-REQUEST. A Server Identifier other than ours means the
 * client talks to another server; SOLICIT, CONFIRM, REBIND and
 * INFORMATION-REQUEST to a unicast address must be discarded.
 *
 * Return: DHCP6_OK for a message to answer, DHCP6_BAD if malformed,
 *	   DHCP6_IGNORED if not for us
 */
static enum dhcp6_verdict dhcp6_parse(const struct core *c, const uint8_t *ip6h,
				      struct pkt_view msg, struct dhcp6_msg *m)
{
	static const uint8_t unspec[16];
	bool too_many = false, multicast_only;
	uint8_t duid[DHCP6_DUID_LL_LEN];
	enum dhcp6_verdict r;
	const uint8_t *h;

	memset(m, 0, sizeof(*m));
	m->first_na = -1;
	m->src = ip6h + 8;
	m->dst = ip6h + 24;
	h = pkt_pull(&msg, DHCP6_HLEN);
	if (!h)
		return DHCP6_BAD;
	m->type = h[0];
	m->xid = h + 1;

	switch (m->type) {
	case DH6_SOLICIT:
	case DH6_CONFIRM:
	case DH6_REBIND:
	case DH6_INFORMATION_REQUEST:
		multicast_only = true;
		break;
	case DH6_REQUEST:
	case DH6_RENEW:
	case DH6_RELEASE:
	case DH6_DECLINE:
		multicast_only = false;
		break;
	default:
		/* assigned but not a client message we serve (ADVERTISE,
		 * REPLY, RECONFIGURE, relay, lease query...): not for us;
		 * unassigned: malformed */
		if (m->type == 0 || m->type > DH6_TYPE_MAX_ASSIGNED)
			return DHCP6_BAD;
		return DHCP6_IGNORED;
	}

	r = dhcp6_parse_opts(msg, m, &too_many);
	if (r != DHCP6_OK)
		return r;

	switch (m->type) {
	case DH6_SOLICIT:
	case DH6_CONFIRM:
	case DH6_REBIND:
		if (!m->has_client_id || m->has_server_id)
			return DHCP6_BAD;
		break;
	case DH6_INFORMATION_REQUEST:
		if (m->nia || too_many)
			return DHCP6_BAD;
		break;
	default: /* REQUEST, RENEW, RELEASE, DECLINE */
		if (!m->has_client_id || !m->has_server_id)
			return DHCP6_BAD;
		break;
	}
	if (m->has_server_id) {
		dhcp6_server_duid(c, duid);
		if (m->server_id.len != sizeof(duid) ||
		    memcmp(m->server_id.p, duid, sizeof(duid)))
			return DHCP6_IGNORED; /* the client chose another */
	}
	if (multicast_only && m->dst[0] != 0xff)
		return DHCP6_IGNORED;
	if (too_many || !memcmp(m->src, unspec, 16))
		return DHCP6_IGNORED;
	return DHCP6_OK;
}

/**
 * dhcp6_grow() - take bytes at the end of a reply being built
 * @o:		reply
 * @len:	bytes
 *
 * The reply buffer holds the largest reply: header, status (30), server
 * (14) and client (134) identifiers, Preference (5), DHCP6_MAX_IAS IAs
 * (the bound one 44 bytes plus 28 per zeroed address, each other one at
 * most 46), DNS (20) and the search list (260): 1057 bytes at most. The
 * Client FQDN (at most 260) comes last and only if it fits: the largest
 * reply that has one, a RENEW with eight IAs and eight addresses zeroed,
 * takes 1184 bytes with it.
 *
 * Return: where to write them
 */
static uint8_t *dhcp6_grow(struct dhcp6_out *o, size_t len)
{
	uint8_t *p = o->buf + o->len;

	ASSERT(len <= sizeof(o->buf) - o->len);
	o->len += len;
	return p;
}

/**
 * dhcp6_put() - append an option to a reply being built
 * @o:		reply
 * @code:	option code
 * @len:	value length
 *
 * Return: where to write the value
 */
static uint8_t *dhcp6_put(struct dhcp6_out *o, uint16_t code, size_t len)
{
	uint8_t *p = dhcp6_grow(o, DHCP6_OPT_HLEN + len);

	wr16(p, code);
	wr16(p + 2, (uint16_t)len);
	return p + DHCP6_OPT_HLEN;
}

/**
 * dhcp6_close() - set the length of an option whose value was appended
 * piecewise (an IA and its nested options)
 * @o:		reply
 * @at:		offset of the option's header in the reply
 */
static void dhcp6_close(struct dhcp6_out *o, size_t at)
{
	wr16(o->buf + at + 2, (uint16_t)(o->len - at - DHCP6_OPT_HLEN));
}

/**
 * dhcp6_put_status() - append a Status Code option with its message
 * @o:		reply
 * @status:	STATUS6_*
 */
static void dhcp6_put_status(struct dhcp6_out *o, uint16_t status)
{
	const char *text;
	size_t len;
	uint8_t *p;

	switch (status) {
	case STATUS6_SUCCESS:
		text = "success";
		break;
	case STATUS6_NOADDRSAVAIL:
		text = "no addresses available";
		break;
	case STATUS6_NOBINDING:
		text = "no binding";
		break;
	case STATUS6_NOTONLINK:
		text = "not on link";
		break;
	default:
		ASSERT(status == STATUS6_NOPREFIXAVAIL);
		text = "no prefixes available";
		break;
	}
	len = strlen(text);
	p = dhcp6_put(o, OPT6_STATUS_CODE, 2 + len);
	wr16(p, status);
	memcpy(p + 2, text, len);
}

/**
 * dhcp6_put_iaaddr() - append an IA Address option
 * @o:		reply
 * @addr:	the address, 16 bytes
 * @preferred_s: preferred lifetime
 * @valid_s:	valid lifetime
 */
static void dhcp6_put_iaaddr(struct dhcp6_out *o, const uint8_t *addr,
			     uint32_t preferred_s, uint32_t valid_s)
{
	uint8_t *p = dhcp6_put(o, OPT6_IAADDR, IAADDR_FIXED_LEN);

	memcpy(p, addr, 16);
	wr32(p + 16, preferred_s);
	wr32(p + 20, valid_s);
}

/**
 * dhcp6_next_addr() - the next address listed in an IA's nested options
 * @v:		nested options (validated), advanced past the IAADDR found
 *
 * Return: the address (16 bytes), or NULL when there is none left
 */
static const uint8_t *dhcp6_next_addr(struct pkt_view *v)
{
	struct pkt_view val;
	uint16_t code;

	while (v->len && !dhcp6_opt_pull(v, &code, &val)) {
		if (code == OPT6_IAADDR && val.len >= IAADDR_FIXED_LEN)
			return val.p;
	}
	return NULL;
}

/**
 * dhcp6_put_ia() - answer one IA of the client's message
 * @c:		core
 * @o:		reply
 * @m:		the client's message
 * @ia:		the IA
 * @bound:	this IA gets the address (the first IA_NA)
 * @zeroed:	in/out: addresses returned at lifetime 0 so far
 *
 * The IA goes back with the client's IAID. The bound one holds the guest's
 * address with T1 and T2; after RENEW and REBIND, also the other addresses
 * the client listed in it, at lifetimes 0, at most DHCP6_MAX_ZEROED in the
 * whole reply. Any other IA gets T1 and T2 of 0 and a status: NoBinding
 * for RENEW and REBIND, else NoPrefixAvail for IA_PD and NoAddrsAvail for
 * IA_NA and IA_TA.
 */
static void dhcp6_put_ia(const struct core *c, struct dhcp6_out *o,
			 const struct dhcp6_msg *m, const struct dhcp6_ia *ia,
			 bool bound, unsigned *zeroed)
{
	size_t fixed = dhcp6_ia_fixed_len(ia->code), at = o->len;
	bool renewal = m->type == DH6_RENEW || m->type == DH6_REBIND;
	struct pkt_view sub = dhcp6_tail(ia->v, fixed);
	const uint8_t *addr;
	uint8_t *p;

	dhcp6_put(o, ia->code, 0);
	p = dhcp6_grow(o, fixed);
	memcpy(p, ia->v.p, 4); /* IAID */
	if (fixed == IA_NA_FIXED_LEN) {
		wr32(p + 4, bound ? DHCP6_T1_S : 0);
		wr32(p + 8, bound ? DHCP6_T2_S : 0);
	}
	if (bound) {
		dhcp6_put_iaaddr(o, c->conf.guest6, DHCP6_PREFERRED_S,
				 DHCP6_VALID_S);
		while (renewal && *zeroed < DHCP6_MAX_ZEROED &&
		       (addr = dhcp6_next_addr(&sub))) {
			if (!memcmp(addr, c->conf.guest6, 16))
				continue;
			dhcp6_put_iaaddr(o, addr, 0, 0);
			(*zeroed)++;
		}
	} else if (renewal) {
		dhcp6_put_status(o, STATUS6_NOBINDING);
	} else {
		dhcp6_put_status(o, ia->code == OPT6_IA_PD ?
					    STATUS6_NOPREFIXAVAIL :
					    STATUS6_NOADDRSAVAIL);
	}
	dhcp6_close(o, at);
}

/**
 * dhcp6_confirm_status() - are the addresses of a CONFIRM on our link?
 * @c:		core
 * @m:		a CONFIRM
 *
 * "On the link" is narrower here than the prefix: only the guest's one
 * address is (any other is not one we gave out, and the client had
 * better ask again).
 *
 * Return: STATUS6_SUCCESS if every address in the IA_NAs and IA_TAs is the
 *	   guest's, STATUS6_NOTONLINK if one is not, -1 if none is listed
 */
static int dhcp6_confirm_status(const struct core *c, const struct dhcp6_msg *m)
{
	const uint8_t *addr;
	int r = -1;
	unsigned i;

	for (i = 0; i < m->nia; i++) {
		const struct dhcp6_ia *ia = &m->ia[i];
		struct pkt_view sub;

		if (ia->code == OPT6_IA_PD)
			continue;
		sub = dhcp6_tail(ia->v, dhcp6_ia_fixed_len(ia->code));
		while ((addr = dhcp6_next_addr(&sub))) {
			if (memcmp(addr, c->conf.guest6, 16))
				return STATUS6_NOTONLINK;
			r = STATUS6_SUCCESS;
		}
	}
	return r;
}

/**
 * dhcp6_put_config() - append the DNS server and the search list
 * @c:		core (conf.dns6, conf.dhcp4.search)
 * @o:		reply
 */
static void dhcp6_put_config(const struct core *c, struct dhcp6_out *o)
{
	static const uint8_t unspec[16];
	const struct dhcp4_conf *d = &c->conf.dhcp4;
	size_t slen = MIN(d->search_len, sizeof(d->search));

	if (memcmp(c->conf.dns6, unspec, 16))
		memcpy(dhcp6_put(o, OPT6_DNS_SERVERS, 16), c->conf.dns6, 16);
	if (slen)
		memcpy(dhcp6_put(o, OPT6_DOMAIN_LIST, slen), d->search, slen);
}

/**
 * dhcp6_put_fqdn() - append the Client FQDN option if the client asked
 * @c:		core (conf.dhcp4.fqdn, DNS wire format)
 * @o:		reply
 * @m:		the client's message
 *
 * Left out without a name, for a client that neither sent the option nor
 * listed it in its Option Request, and when the reply has no room left.
 */
static void dhcp6_put_fqdn(const struct core *c, struct dhcp6_out *o,
			   const struct dhcp6_msg *m)
{
	const struct dhcp4_conf *d = &c->conf.dhcp4;
	size_t len = MIN(d->fqdn_len, sizeof(d->fqdn));
	uint8_t *p;

	if (!len || !m->want_fqdn ||
	    DHCP6_OPT_HLEN + 1 + len > sizeof(o->buf) - o->len)
		return;
	p = dhcp6_put(o, OPT6_CLIENT_FQDN, 1 + len);
	p[0] = m->fqdn_flags & FQDN6_S ? FQDN6_O : 0;
	memcpy(p + 1, d->fqdn, len);
}

/**
 * dhcp6_reply() - build the answer to a client message and queue it
 * @c:		core
 * @m:		the client's message (dhcp6_parse() said DHCP6_OK)
 * @fx:		effects out
 *
 * See the table in the DOC above for what each message gets. The reply
 * goes to the client's source address, port 546, from the gateway address
 * the client sent to, or from the gateway's link-local address if it was
 * multicast. The reply counter moves only if the frame was queued.
 */
static void dhcp6_reply(struct core *c, const struct dhcp6_msg *m,
			struct fx *fx)
{
	bool ias = false, config = false;
	uint8_t type = DH6_REPLY, *p;
	const uint8_t *saddr;
	unsigned i, zeroed = 0;
	struct dhcp6_out o;
	int status = -1;

	switch (m->type) {
	case DH6_SOLICIT:
		if (m->first_na < 0) {
			type = DH6_ADVERTISE;
			status = STATUS6_NOADDRSAVAIL;
			break;
		}
		type = m->rapid_commit ? DH6_REPLY : DH6_ADVERTISE;
		ias = config = true;
		break;
	case DH6_REQUEST:
	case DH6_RENEW:
	case DH6_REBIND:
		ias = config = true;
		break;
	case DH6_CONFIRM:
		status = dhcp6_confirm_status(c, m);
		if (status < 0)
			return; /* nothing to confirm: no reply */
		break;
	case DH6_RELEASE:
	case DH6_DECLINE:
		status = STATUS6_SUCCESS;
		break;
	default:
		ASSERT(m->type == DH6_INFORMATION_REQUEST);
		config = true;
		break;
	}

	o.len = 0;
	p = dhcp6_grow(&o, DHCP6_HLEN);
	p[0] = type;
	memcpy(p + 1, m->xid, 3);
	if (status >= 0)
		dhcp6_put_status(&o, (uint16_t)status);
	dhcp6_server_duid(c, dhcp6_put(&o, OPT6_SERVERID, DHCP6_DUID_LL_LEN));
	if (m->has_client_id)
		memcpy(dhcp6_put(&o, OPT6_CLIENTID, m->client_id.len),
		       m->client_id.p, m->client_id.len);
	if (ias && type == DH6_ADVERTISE)
		*dhcp6_put(&o, OPT6_PREFERENCE, 1) = DHCP6_PREFERENCE_MAX;
	if (ias && m->type == DH6_SOLICIT && type == DH6_REPLY)
		dhcp6_put(&o, OPT6_RAPID_COMMIT, 0);
	for (i = 0; ias && i < m->nia; i++)
		dhcp6_put_ia(c, &o, m, &m->ia[i], (int)i == m->first_na,
			     &zeroed);
	if (config) {
		dhcp6_put_config(c, &o);
		dhcp6_put_fqdn(c, &o, m);
	}

	saddr = !memcmp(m->dst, c->conf.gw6, 16) ? c->conf.gw6 : c->conf.gw6_ll;
	if (udp6_send(c, fx, saddr, DHCP6_SERVER_PORT, m->src,
		      DHCP6_CLIENT_PORT, o.buf, o.len))
		return; /* counted by udp6_send() */
	if (type == DH6_ADVERTISE)
		CTR_INC(c, DHCP6_ADVERTISE);
	else
		CTR_INC(c, DHCP6_REPLIES);
}

/**
 * dhcp6_for_us() - is a UDP datagram from the guest a message to our server?
 * @c:		core (our addresses)
 * @ip6h:	the datagram's IPv6 header (validated)
 * @dport:	its UDP destination port
 *
 * Return: true for port 547 at ff02::1:2 or a gateway address
 */
bool dhcp6_for_us(const struct core *c, const uint8_t *ip6h, uint16_t dport)
{
	const uint8_t *dst = ip6h + 24;

	return dport == DHCP6_SERVER_PORT &&
	       (!memcmp(dst, dhcp6_all_servers, 16) ||
		!memcmp(dst, c->conf.gw6_ll, 16) ||
		!memcmp(dst, c->conf.gw6, 16));
}

/**
 * dhcp6_input() - answer a DHCPv6 client message
 * @c:		core
 * @ip6h:	the request's IPv6 header (validated)
 * @udp_payload: the UDP payload (the DHCPv6 message), a loan
 * @fx:		effects out: at most one reply frame
 *
 * Context: the owning shard, for datagrams dhcp6_for_us() accepted.
 */
void dhcp6_input(struct core *c, const uint8_t *ip6h,
		 struct pkt_view udp_payload, struct fx *fx)
{
	struct dhcp6_msg m;

	if (!c->conf.dhcp6) {
		CTR_INC(c, DHCP6_DROP_IGNORED);
		return;
	}
	switch (dhcp6_parse(c, ip6h, udp_payload, &m)) {
	case DHCP6_OK:
		break;
	case DHCP6_BAD:
		CTR_INC(c, DHCP6_DROP_BAD);
		return;
	default:
		CTR_INC(c, DHCP6_DROP_IGNORED);
		return;
	}

	switch (m.type) {
	case DH6_SOLICIT:
		CTR_INC(c, DHCP6_SOLICIT);
		break;
	case DH6_REQUEST:
		CTR_INC(c, DHCP6_REQUEST);
		break;
	case DH6_CONFIRM:
		CTR_INC(c, DHCP6_CONFIRM);
		break;
	case DH6_RENEW:
		CTR_INC(c, DHCP6_RENEW);
		break;
	case DH6_REBIND:
		CTR_INC(c, DHCP6_REBIND);
		break;
	case DH6_RELEASE:
		CTR_INC(c, DHCP6_RELEASE);
		break;
	case DH6_DECLINE:
		CTR_INC(c, DHCP6_DECLINE);
		break;
	default: /* dhcp6_parse() lets no other type through */
		ASSERT(m.type == DH6_INFORMATION_REQUEST);
		CTR_INC(c, DHCP6_INFO_REQUEST);
		break;
	}
	dhcp6_reply(c, &m, fx);
}

/**
 * dhcp6_conf_bad() - check the DHCPv6 part of a configuration
 * @conf:	configuration with ipv6 on
 *
 * Return: true if conf->dhcp6 is on and conf->guest6 is outside
 *	   conf->prefix6, its subnet-router anycast address, the gateway's
 *	   or the DNS address
 */
bool dhcp6_conf_bad(const struct core_conf *conf)
{
	static const uint8_t zero_iid[8];
	const uint8_t *a = conf->guest6;

	if (!conf->dhcp6)
		return false;
	return memcmp(a, conf->prefix6, 8) || !memcmp(a + 8, zero_iid, 8) ||
	       !memcmp(a, conf->gw6, 16) || !memcmp(a, conf->dns6, 16);
}
