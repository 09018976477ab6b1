/*
 * hostport.c - network entries of the policy: host names, "*.name",
 * IP literals and any of them with a port ("host:port", "[::1]:8080").
 *
 * Rules:
 * - An entry is checked at load: a malformed one is an error, never an
 *   entry that silently matches nothing.
 * - Names compare without case; IPv6 literals compare as written between
 *   brackets or bare ("::1" and "[::1]" are the same entry).
 * - A port in an entry restricts it to that port. When the caller does
 *   not know the port (a shell command such as `curl host`), a deny
 *   entry with a port still matches and an allow entry does not: the
 *   unknown side is the restrictive one.
 */
#include "policy/rules.h"
#include "common/base/util.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static int
name_valid(const char *s, int pattern)
{
	size_t n = strlen(s), k;

	if (pattern && s[0] == '*' && s[1] == '.')
		s += 2, n -= 2;
	if (n == 0 || n > 253 || s[0] == '.' || s[0] == '-' || s[n - 1] == '.')
		return 0;
	for (k = 0; k < n; k++)
		if (!ascii_name_char(s[k]) || (s[k] == '.' && s[k + 1] == '.'))
			return 0;
	return 1;
}

int
hostport_parse(const char *s, int pattern, char *host, size_t hostsz, int *port)
{
	unsigned char buf[16];
	const char *colon, *end;
	char *e;
	long v;
	size_t n;

	*port = 0;
	if (s == NULL || s[0] == '\0' || hostsz == 0)
		return -1;
	if (s[0] == '[') {
		/* [v6] or [v6]:port */
		if ((end = strchr(s, ']')) == NULL)
			return -1;
		n = (size_t)(end - s - 1);
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			return -1;
		if (n == 0 || n >= hostsz)
			return -1;
		memcpy(host, s + 1, n);
		host[n] = '\0';
		if (inet_pton(AF_INET6, host, buf) != 1)
			return -1;
	} else if (strchr(s, ':') != strrchr(s, ':')) {
		/* bare IPv6: no port */
		if (strlen(s) >= hostsz || inet_pton(AF_INET6, s, buf) != 1)
			return -1;
		strcpy(host, s);
		return 0;
	} else {
		colon = strchr(s, ':');
		n = colon ? (size_t)(colon - s) : strlen(s);
		if (n == 0 || n >= hostsz)
			return -1;
		memcpy(host, s, n);
		host[n] = '\0';
		if (!name_valid(host, pattern))
			return -1;
	}
	if (colon == NULL)
		return 0;
	if (colon[1] < '0' || colon[1] > '9' || strlen(colon + 1) > 5)
		return -1;
	v = strtol(colon + 1, &e, 10);
	if (*e != '\0' || v < 1 || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

int
net_entry_valid(const char *s)
{
	char host[256];
	int port;

	return hostport_parse(s, 1, host, sizeof(host), &port) == 0;
}

int
net_entry_match(const char *entry, const char *host, int port, int deny)
{
	char eh[256], h[256], tmp[256];
	size_t n;
	int ep, hp;

	if (hostport_parse(entry, 1, eh, sizeof(eh), &ep) < 0)
		return deny;    /* checked at load; fail closed all the same */
	/* "name." is the same host as "name" */
	n = strlen(host);
	if (n > 1 && n < sizeof(tmp) && host[n - 1] == '.' && host[n - 2] != '.') {
		memcpy(tmp, host, n - 1);
		tmp[n - 1] = '\0';
		host = tmp;
	}
	/* the host may come as "[v6]" from a URL */
	if (hostport_parse(host, 0, h, sizeof(h), &hp) < 0)
		return deny && domain_match(eh, host);
	if (hp != 0 && port == 0)
		port = hp;
	if (!domain_match(eh, h))
		return 0;
	if (ep == 0)
		return 1;
	return port == 0 ? deny : port == ep;
}
