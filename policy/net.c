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

void
an_cls_net(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name, *s;
	int k, hosts = 0, opts = 1, is_curl = strcmp(name, "curl") == 0;
	int is_wget = strcmp(name, "wget") == 0, first = 1;
	int hostword = strcmp(name, "ssh") == 0 || strcmp(name, "nc") == 0 ||
	    strcmp(name, "ncat") == 0 || strcmp(name, "netcat") == 0 ||
	    strcmp(name, "telnet") == 0 || strcmp(name, "ping") == 0 ||
	    strcmp(name, "ftp") == 0 || strcmp(name, "sftp") == 0 ||
	    strcmp(name, "dig") == 0 || strcmp(name, "host") == 0 ||
	    strcmp(name, "nslookup") == 0;
	int outfile = 0;

	ev_factor(ev, F_NETWORK);
	ev->net_pipeline = v->c->pipeline;
	ev->parse_id = v->pid;
	for (k = 1; k < v->n; k++) {
		struct sh_word *w = &v->w[k];

		s = w->s;
		if (opts && an_lit(w) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && an_is_opt(w)) {
			const char *val = NULL, *q;
			char letter = 0;
			int has_val = 0;

			if (s[1] != '-') {
				/* a cluster: -sSLo FILE, -d@FILE, -fsSLO */
				for (q = s + 1; *q != '\0'; q++) {
					if (is_curl && *q == 'O') {
						outfile = 1;
						trig_write(ev, ".", name);
					}
					if (strchr(pr->optarg, *q) == NULL)
						continue;
					letter = *q;
					has_val = 1;
					if (q[1] != '\0') {
						val = q + 1;
					} else if (k + 1 < v->n) {
						k++;
						val = an_lit(&v->w[k]) ? v->w[k].s : NULL;
					}
					break;
				}
			} else if (strchr(s, '=') != NULL) {
				val = strchr(s, '=') + 1;
				has_val = 1;
			} else if ((is_curl || is_wget) && k + 1 < v->n &&
			    (strcmp(s, "--output") == 0 || strcmp(s, "--data") == 0 ||
			    strncmp(s, "--data-", 7) == 0 ||
			    strcmp(s, "--upload-file") == 0 || strcmp(s, "--form") == 0 ||
			    strcmp(s, "--config") == 0 || strcmp(s, "--header") == 0 ||
			    strcmp(s, "--output-document") == 0 ||
			    strcmp(s, "--post-file") == 0 || strcmp(s, "--user") == 0 ||
			    strcmp(s, "--request") == 0 || strcmp(s, "--url") == 0 ||
			    strcmp(s, "--directory-prefix") == 0 ||
			    strcmp(s, "--output-file") == 0 ||
			    strcmp(s, "--append-output") == 0 ||
			    strcmp(s, "--body-file") == 0 ||
			    strcmp(s, "--form-string") == 0)) {
				k++;
				val = an_lit(&v->w[k]) ? v->w[k].s : NULL;
				has_val = 1;
			}
			if (is_curl && (s[1] == '-' ? strcmp(s, "--remote-name") == 0 ||
			    strcmp(s, "--remote-name-all") == 0 : 0)) {
				outfile = 1;
				trig_write(ev, ".", name);
			}
			if (!has_val)
				continue;
			if ((is_curl && (letter == 'o' || strncmp(s, "--output", 8) == 0)) ||
			    (is_wget && (letter == 'O' || letter == 'o' || letter == 'a' ||
			    strncmp(s, "--output-document", 17) == 0 ||
			    strncmp(s, "--output-file", 13) == 0 ||
			    strncmp(s, "--append-output", 15) == 0))) {
				if (letter == 'O' || letter == 'o' ||
				    strncmp(s, "--output", 8) == 0)
					outfile = 1;
				if (val == NULL)
					trig_write(ev, NULL, name);
				else if (strcmp(val, "-") != 0)
					trig_write(ev, val, name);
			} else if (is_wget && (letter == 'P' ||
			    strncmp(s, "--directory-prefix", 18) == 0)) {
				outfile = 1;
				if (val == NULL)
					trig_write(ev, NULL, name);
				else
					trig_write(ev, val, name);
			} else if (val == NULL) {
				/* a value only known at run time: data to send? */
				if (is_curl && (letter == 'd' || letter == 'F' ||
				    letter == 'T' || strncmp(s, "--data", 6) == 0 ||
				    strncmp(s, "--upload", 8) == 0))
					ev_note(ev, POLICY_ESCALATE, "network",
					    "builtin: network", "%s sends data only known "
					    "at run time", name);
			} else if (is_curl && val[0] == '@' && val[1] != '\0' &&
			    (letter == 'd' || strncmp(s, "--data", 6) == 0 ||
			    letter == 'K')) {
				trig_read(ev, val + 1, name);
			} else if (is_curl && strchr(val, '@') != NULL &&
			    (letter == 'F' || strncmp(s, "--form", 6) == 0)) {
				const char *at = strchr(val, '@'), *lt;
				char f[SBX_PATH_MAX];
				size_t n = strcspn(at + 1, ";");

				if (n < sizeof(f)) {
					memcpy(f, at + 1, n);
					f[n] = '\0';
					trig_read(ev, f, name);
				}
				lt = strchr(val, '<');
				if (lt != NULL)
					trig_read(ev, lt + 1, name);
			} else if (is_curl && strchr(val, '<') != NULL &&
			    (letter == 'F' || strncmp(s, "--form", 6) == 0)) {
				trig_read(ev, strchr(val, '<') + 1, name);
			} else if (letter == 'T' || letter == 'K' ||
			    strncmp(s, "--upload-file", 13) == 0 ||
			    strncmp(s, "--post-file", 11) == 0 ||
			    strncmp(s, "--body-file", 11) == 0 ||
			    strncmp(s, "--config", 8) == 0) {
				trig_read(ev, val, name);
			} else if (strcmp(name, "ssh") == 0 || strcmp(name, "scp") == 0) {
				if (letter == 'i' || letter == 'F')
					trig_read(ev, val, name);
			}
			if (val != NULL && strstr(val, "://") != NULL) {
				an_net_host_word(ev, name, val);
				hosts++;
			}
			continue;
		}
		if (!an_lit(w)) {
			if (w->flags & SH_W_SUBST || w->flags & SH_W_VAR) {
				if (first && hostword) {
					trig_network(ev, NULL, name);
					hosts++;
				}
			}
			first = 0;
			continue;
		}
		if (strstr(s, "://") != NULL) {
			an_net_host_word(ev, name, s);
			hosts++;
		} else if ((strcmp(name, "scp") == 0 || strcmp(name, "rsync") == 0)) {
			if (strchr(s, ':') != NULL) {
				an_net_host_word(ev, name, s);
				hosts++;
			} else if (k == v->n - 1) {
				trig_write(ev, s, name);
			} else {
				trig_read(ev, s, name);
			}
		} else if (hostword && first) {
			an_net_host_word(ev, name, s);
			hosts++;
			if (strcmp(name, "ssh") == 0 && k + 1 < v->n) {
				/* ssh HOST COMMAND: the command runs remotely */
				ev_note(ev, POLICY_ESCALATE, "network", "builtin: ssh",
				    "ssh runs a command on %s", s);
				break;
			}
		} else if (is_curl || is_wget) {
			/* a bare host: curl example.com */
			if (strchr(s, '.') != NULL && strchr(s, '/') == NULL) {
				an_net_host_word(ev, name, s);
				hosts++;
			} else if (strchr(s, '.') != NULL) {
				char u[SBX_PATH_MAX];

				snprintf(u, sizeof(u), "http://%s", s);
				an_net_host_word(ev, name, u);
				hosts++;
			}
		}
		first = 0;
	}
	if (is_wget && !outfile)
		trig_write(ev, ".", name);
	if (hosts == 0)
		trig_network(ev, NULL, name);
	if (strcmp(name, "ssh") == 0 || strcmp(name, "nc") == 0 ||
	    strcmp(name, "ncat") == 0 || strcmp(name, "netcat") == 0 ||
	    strcmp(name, "socat") == 0 || strcmp(name, "telnet") == 0 ||
	    strcmp(name, "sftp") == 0 || strcmp(name, "ftp") == 0)
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
		    "%s opens an interactive or raw network connection", name);
}
