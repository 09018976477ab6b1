/*
 * proxy.h - sbx-proxy, the jail's way out: an HTTP proxy on a Unix
 * socket, outside the jail, that lets a connection through only when the
 * folder's accepted policy allows its host, or a human approved it
 * through the folder queue.
 *
 * Contract:
 * - One struct proxy per process, shared by the connection threads; the
 *   fields under `lock` are only touched with it held.
 * - proxy_serve() owns the client fd it is given and closes it; it never
 *   exits the process and never prints except one line per internal
 *   error on stderr.
 * - Every connection, whatever its outcome, ends in one
 *   "network_connection" event in queue/events/ (see docs/AUDIT.md);
 *   sbxd is the only writer of the audit log.
 */
#ifndef SBX_PROXY_H
#define SBX_PROXY_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

#include "policy/policy.h"

#define PROXY_MAX_HEADER        16384   /* request line + headers */
#define PROXY_MAX_OPEN          1024    /* host:port approved in a session */
#define PROXY_CONNECT_TIMEOUT_S 10      /* to the upstream server */
#define PROXY_MAX_SESSION       128
#define PROXY_STOP_WAIT_MS      1500    /* for connections to end and be recorded */
#define PROXY_TICK_MS           250     /* how often waits look at `stopping` */

struct proxy {
	char folder[PATH_MAX];          /* resolved; holds .sandbox/ */
	char config[PATH_MAX];          /* the sbx config dir */
	char session[PROXY_MAX_SESSION + 1];
	int max_conns;                  /* concurrent connections */
	int header_timeout_s;           /* to receive the request head */
	int idle_timeout_s;             /* a tunnel with no traffic either way */

	volatile sig_atomic_t stopping; /* set once: tunnels close, records are written */
	pthread_mutex_t lock;
	int active;                     /* connections being served */
	struct policy *pol;             /* the accepted policy, or NULL */
	char pol_err[600];              /* why pol is NULL */
	struct stat pol_st[3];          /* policy.json, policy.accepted, approvers/ */
	int pol_loaded;
	char *open[PROXY_MAX_OPEN];     /* "host:port ID" approved for this session */
	int n_open;
};

/* Serves one accepted client connection to the end; closes fd. */
void proxy_serve(struct proxy *px, int fd);

/* Answers a connection over the limit at once (503) and records it. */
void proxy_refuse_busy(struct proxy *px, int fd);

#endif
