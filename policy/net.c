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

/* The long options of curl and wget that take a separate value. */
static const char *const net_long_valued[] = {
	"--output", "--data", "--upload-file", "--form", "--config", "--header",
	"--output-document", "--post-file", "--user", "--request", "--url",
	"--directory-prefix", "--output-file", "--append-output", "--body-file",
	"--form-string", NULL,
};

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

static int
long_valued(const char *s)
{
	int k;

	if (strncmp(s, "--data-", 7) == 0)
		return 1;
	for (k = 0; net_long_valued[k] != NULL; k++)
		if (strcmp(s, net_long_valued[k]) == 0)
			return 1;
	return 0;
}

/*
 * The value of option word k (-sSLo FILE, -d@FILE, --x=v, --output FILE):
 * *val, NULL when not known before it runs; *letter, the short option.
 * Returns 1 when the option takes a value, 0 when not; *k moves past a
 * separate value.
 */
static int
net_opt_value(struct netw *n, int *k, const char **val, char *letter)
{
	struct cmdv *v = n->v;
	const char *s = v->w[*k].s, *q;

	*val = NULL;
	*letter = 0;
	if (s[1] != '-') {
		/* a cluster: -sSLo FILE, -d@FILE, -fsSLO */
		for (q = s + 1; *q != '\0'; q++) {
			if ((n->fl & N_CURL) && *q == 'O') {
				n->outfile = 1;
				trig_write(n->ev, ".", n->name);
			}
			if (strchr(n->pr->optarg, *q) == NULL)
				continue;
			*letter = *q;
			if (q[1] != '\0') {
				*val = q + 1;
			} else if (*k + 1 < v->n) {
				(*k)++;
				*val = an_lit(&v->w[*k]) ? v->w[*k].s : NULL;
			}
			return 1;
		}
		return 0;
	}
	if (strchr(s, '=') != NULL) {
		*val = strchr(s, '=') + 1;
		return 1;
	}
	if ((n->fl & (N_CURL | N_WGET)) && *k + 1 < v->n && long_valued(s)) {
		(*k)++;
		*val = an_lit(&v->w[*k]) ? v->w[*k].s : NULL;
		return 1;
	}
	return 0;
}

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

/*
 * What the value of a client's option does: the first rule that names the
 * option (a letter of a short option, or a prefix of a long one: --data
 * covers --data-binary), for one of the client's flags (0: any client),
 * and whose condition on the value holds, decides.
 */
enum net_when {
	NW_ANY,         /* any value, known or not */
	NW_UNKNOWN,     /* a value only known at run time (a rule for it
	                   ends the walk: the rules below want a value) */
	NW_AT,          /* @FILE */
	NW_FORMREF,     /* name=@FILE or name=<FILE */
};

enum net_eff {
	NE_NONE,        /* nothing more */
	NE_OUT,         /* the download is written there ("-": stdout) */
	NE_APPEND,      /* a file written (a log); the download is not named */
	NE_DIR,         /* the directory the download lands in */
	NE_SEND,        /* data sent that is only known at run time */
	NE_READ_AT,     /* the file after "@" is read and sent */
	NE_FORM,        /* the files of a form are read and sent */
	NE_READ,        /* a file read: uploaded, a configuration, a key */
};

static const struct net_rule {
	unsigned clients;
	const char *letters;
	const char *longs[5];
	enum net_when when;
	enum net_eff eff;
} net_rules[] = {
	{ N_CURL, "o", { "--output" }, NW_ANY, NE_OUT },
	{ N_WGET, "Oo", { "--output-document", "--output-file" }, NW_ANY,
	    NE_OUT },
	{ N_WGET, "a", { "--append-output" }, NW_ANY, NE_APPEND },
	{ N_WGET, "P", { "--directory-prefix" }, NW_ANY, NE_DIR },
	{ N_CURL, "dFT", { "--data", "--upload" }, NW_UNKNOWN, NE_SEND },
	{ 0, "", { NULL }, NW_UNKNOWN, NE_NONE },
	{ N_CURL, "dK", { "--data" }, NW_AT, NE_READ_AT },
	{ N_CURL, "F", { "--form" }, NW_FORMREF, NE_FORM },
	{ 0, "TK", { "--upload-file", "--post-file", "--body-file",
	    "--config" }, NW_ANY, NE_READ },
	{ N_KEYS, "iF", { NULL }, NW_ANY, NE_READ },
};

/* The rule for option s (letter: its short option, 0 for a long one)
 * with the value val (NULL: known at run time only). */
static const struct net_rule *
net_rule(unsigned fl, const char *s, char letter, const char *val)
{
	const struct net_rule *r;
	size_t k;
	int hit, j;

	for (k = 0; k < sizeof(net_rules) / sizeof(net_rules[0]); k++) {
		r = &net_rules[k];
		if (r->clients != 0 && (fl & r->clients) == 0)
			continue;
		hit = r->letters[0] == '\0' && r->longs[0] == NULL;
		if (letter != 0 && strchr(r->letters, letter) != NULL)
			hit = 1;
		for (j = 0; !hit && j < 5 && r->longs[j] != NULL; j++)
			hit = strncmp(s, r->longs[j], strlen(r->longs[j])) == 0;
		if (!hit || (r->when == NW_UNKNOWN && val != NULL) ||
		    (r->when != NW_UNKNOWN && r->when != NW_ANY && val == NULL))
			continue;
		if (r->when == NW_AT && !(val[0] == '@' && val[1] != '\0'))
			continue;
		if (r->when == NW_FORMREF && strchr(val, '@') == NULL &&
		    strchr(val, '<') == NULL)
			continue;
		return r;
	}
	return NULL;
}

/* One option of the client: what its value writes, reads or sends. */
static void
net_option(struct netw *n, int *k)
{
	struct ev *ev = n->ev;
	const char *s = n->v->w[*k].s, *val, *name = n->name;
	const struct net_rule *r;
	int curl = (n->fl & N_CURL) != 0;
	char letter;

	if (!net_opt_value(n, k, &val, &letter)) {
		if (curl && (strcmp(s, "--remote-name") == 0 ||
		    strcmp(s, "--remote-name-all") == 0)) {
			n->outfile = 1;
			trig_write(ev, ".", name);
		}
		return;
	}
	r = net_rule(n->fl, s, letter, val);
	switch (r != NULL ? r->eff : NE_NONE) {
	case NE_NONE:
		break;
	case NE_OUT:
	case NE_APPEND:
		if (r->eff == NE_OUT)
			n->outfile = 1;
		if (val == NULL)
			trig_write(ev, NULL, name);
		else if (strcmp(val, "-") != 0)
			trig_write(ev, val, name);
		break;
	case NE_DIR:
		n->outfile = 1;
		trig_write(ev, val, name);
		break;
	case NE_SEND:
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
		    "%s sends data only known at run time", name);
		break;
	case NE_READ_AT:
		trig_read(ev, val + 1, name);
		break;
	case NE_FORM:
		net_form(n, val);
		break;
	case NE_READ:
		trig_read(ev, val, name);
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
	int k, opt, first = 1;

	ev_factor(ev, F_NETWORK);
	ev->net_pipeline = v->c->pipeline;
	ev->parse_id = v->pid;
	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_any(v, &it, &opt)) >= 0) {
		struct sh_word *w = &v->w[k];

		if (opt) {
			net_option(&n, &k);     /* may take values: past them */
			it.k = k + 1;
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
		if (net_operand(&n, k, first) < 0)
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
