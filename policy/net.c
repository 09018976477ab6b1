/*
 * net.c - network clients: curl, wget, ssh, scp, rsync, nc and friends.
 *
 * Rules:
 * - Every host a command names goes through the network trigger; a client
 *   whose host is not known before it runs escalates.
 * - Files a client uploads (curl -d @f, -T f, -F x=@f) are reads, and files
 *   it downloads to (-o, -O, wget's default) are writes.
 * - Raw and interactive connections (ssh, nc, socat, telnet) escalate.
 */
#include "policy/analyse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
an_net_host_word(struct ev *ev, const char *what, const char *s)
{
	char host[256];
	const char *at, *colon;
	size_t n;

	if (strstr(s, "://") != NULL) {
		if (url_host(s, host, sizeof(host)) == 0)
			trig_network(ev, host, what);
		else
			trig_network(ev, NULL, what);
		return;
	}
	at = strchr(s, '@');
	if (at != NULL)
		s = at + 1;
	colon = strchr(s, ':');
	n = colon ? (size_t)(colon - s) : strlen(s);
	if (n == 0 || n >= sizeof(host)) {
		trig_network(ev, NULL, what);
		return;
	}
	memcpy(host, s, n);
	host[n] = '\0';
	trig_network(ev, host, what);
}

/*
 * The network clients, and what their words mean. N_HOSTWORD: the first
 * operand is the host (ssh HOST, nc HOST PORT); N_RAW: an interactive or
 * raw connection, always for a human; N_KEYS: -i and -F name files read
 * (keys, configuration); N_COPY: operands are HOST:PATH or local paths,
 * the last one written (scp, rsync); N_CURL, N_WGET: the options of curl
 * and wget (net_opt_value).
 */
#define N_HOSTWORD      0x01
#define N_RAW           0x02
#define N_KEYS          0x04
#define N_COPY          0x08
#define N_CURL          0x10
#define N_WGET          0x20
#define N_REMOTE        0x40    /* ssh HOST COMMAND runs COMMAND there */

static const struct {
	const char *name;
	unsigned flags;
} net_clients[] = {
	{ "curl", N_CURL }, { "wget", N_WGET },
	{ "ssh", N_HOSTWORD | N_RAW | N_KEYS | N_REMOTE },
	{ "scp", N_KEYS | N_COPY }, { "rsync", N_COPY },
	{ "nc", N_HOSTWORD | N_RAW }, { "ncat", N_HOSTWORD | N_RAW },
	{ "netcat", N_HOSTWORD | N_RAW }, { "socat", N_RAW },
	{ "telnet", N_HOSTWORD | N_RAW }, { "ftp", N_HOSTWORD | N_RAW },
	{ "sftp", N_HOSTWORD | N_RAW }, { "ping", N_HOSTWORD },
	{ "dig", N_HOSTWORD }, { "host", N_HOSTWORD },
	{ "nslookup", N_HOSTWORD },
};

static unsigned
net_flags(const char *name)
{
	size_t k;

	for (k = 0; k < sizeof(net_clients) / sizeof(net_clients[0]); k++)
		if (strcmp(net_clients[k].name, name) == 0)
			return net_clients[k].flags;
	return 0;
}

/* The state of one client command being judged. */
struct netw {
	struct ev *ev;
	struct cmdv *v;
	const struct prog *pr;
	const char *name;
	unsigned fl;
	int hosts;
	int outfile;            /* curl -O, wget -O: the download is named */
};

/* curl -F name=@FILE;type=x, name=<FILE: the files sent. */
static void
net_form(struct netw *n, const char *val)
{
	const char *at = strchr(val, '@'), *lt;
	char f[SBX_PATH_MAX];
	size_t len;

	if (at != NULL) {
		len = strcspn(at + 1, ";");
		if (len < sizeof(f)) {
			memcpy(f, at + 1, len);
			f[len] = '\0';
			trig_read(n->ev, f, n->name);
		}
	}
	lt = strchr(val, '<');
	if (lt != NULL)
		trig_read(n->ev, lt + 1, n->name);
}

/* Data sent that is only known at run time. */
static void
net_send_unknown(struct netw *n)
{
	ev_note(n->ev, POLICY_ESCALATE, "network", "builtin: network",
	    "%s sends data only known at run time", n->name);
}

/*
 * One option of the client (its table: opts.c, OPTS_CURL, OPTS_WGET,
 * OPTS_SSH; the tag says what the value does): what it writes, reads or
 * sends, and a URL in any value is a host.
 */
static void
net_option(struct netw *n, const struct an_opt *o)
{
	struct ev *ev = n->ev;
	const char *val = o->val != NULL && an_lit(o->val) ? o->val->s : NULL;
	const char *name = n->name;
	int tag = o->d != NULL ? o->d->tag : 0;

	if (tag == NET_REMOTE) {
		n->outfile = 1;
		trig_write(ev, ".", name);
		return;
	}
	if (o->val == NULL)
		return;
	switch (tag) {
	case NET_OUT:
	case NET_LOG:
		if (tag == NET_OUT)
			n->outfile = 1;
		if (val == NULL || strcmp(val, "-") != 0)
			trig_write(ev, val, name);
		break;
	case NET_DIR:
		n->outfile = 1;
		trig_write(ev, val, name);
		break;
	case NET_DATA:
	case NET_FORM:
	case NET_UPLOAD:
		if (val == NULL)
			net_send_unknown(n);
		else if (tag == NET_FORM)
			net_form(n, val);
		else if (tag == NET_UPLOAD)
			trig_read(ev, val, name);
		else if (val[0] == '@' && val[1] != '\0')
			trig_read(ev, val + 1, name);
		break;
	case NET_CONFIG:
	case NET_READ:
		if (val != NULL)
			trig_read(ev, tag == NET_CONFIG && val[0] == '@' &&
			    val[1] != '\0' ? val + 1 : val, name);
		break;
	default:
		break;
	}
	if (val != NULL && strstr(val, "://") != NULL) {
		an_net_host_word(ev, name, val);
		n->hosts++;
	}
}

/* One operand of the client: a URL, a host, HOST:PATH or a local path.
 * Returns -1 when the rest of the words are a remote command. */
static int
net_operand(struct netw *n, int k, int first)
{
	struct ev *ev = n->ev;
	const char *s = n->v->w[k].s, *name = n->name;

	if (strstr(s, "://") != NULL) {
		an_net_host_word(ev, name, s);
		n->hosts++;
	} else if (n->fl & N_COPY) {
		if (strchr(s, ':') != NULL) {
			an_net_host_word(ev, name, s);
			n->hosts++;
		} else if (k == n->v->n - 1) {
			trig_write(ev, s, name);
		} else {
			trig_read(ev, s, name);
		}
	} else if ((n->fl & N_HOSTWORD) && first) {
		an_net_host_word(ev, name, s);
		n->hosts++;
		if ((n->fl & N_REMOTE) && k + 1 < n->v->n) {
			/* ssh HOST COMMAND: the command runs remotely */
			ev_note(ev, POLICY_ESCALATE, "network", "builtin: ssh",
			    "ssh runs a command on %s", s);
			return -1;
		}
	} else if ((n->fl & (N_CURL | N_WGET)) && strchr(s, '.') != NULL) {
		/* a bare host: curl example.com */
		if (strchr(s, '/') == NULL) {
			an_net_host_word(ev, name, s);
		} else {
			char u[SBX_PATH_MAX];

			snprintf(u, sizeof(u), "http://%s", s);
			an_net_host_word(ev, name, u);
		}
		n->hosts++;
	}
	return 0;
}

void
an_cls_net(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	struct netw n = { ev, v, pr, pr->name, net_flags(pr->name), 0, 0 };
	struct an_walk it;
	struct an_opt o;
	int r, first = 1, skip_to = 0;

	ev_factor(ev, F_NETWORK);
	ev->net_pipeline = v->c->pipeline;
	ev->parse_id = v->pid;
	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	an_walk_table(&it, an_optset(pr->opts), NULL);
	/* every word is read: the next word a long option whose effect is
	 * judged by an_opts_scan (--cert F) takes is also read as an
	 * operand, as a host when it looks like one */
	it.reread = 1;
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		struct sh_word *w = &v->w[o.k];

		if (o.k < skip_to)
			continue;       /* the value of an option before */
		if (r == 1 && an_lit(w)) {
			net_option(&n, &o);
			if (o.val == &v->w[o.k + 1] && (o.name[1] != '-' ?
			    strchr(pr->optarg, o.name[1]) != NULL :
			    o.d != NULL && (o.d->tag != 0 || o.d->kind == OK_VAL)))
				skip_to = o.k + 2;
			continue;
		}
		if (!an_lit(w)) {
			if ((w->flags & (SH_W_SUBST | SH_W_VAR)) && first &&
			    (n.fl & N_HOSTWORD)) {
				trig_network(ev, NULL, n.name);
				n.hosts++;
			}
			first = 0;
			continue;
		}
		if (net_operand(&n, o.k, first) < 0)
			break;
		first = 0;
	}
	if ((n.fl & N_WGET) && !n.outfile)
		trig_write(ev, ".", n.name);
	if (n.hosts == 0)
		trig_network(ev, NULL, n.name);
	if (n.fl & N_RAW)
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
		    "%s opens an interactive or raw network connection", n.name);
}
