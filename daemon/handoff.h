/*
 * handoff.h - a run handed to the spare executor (daemon/exec.c).
 *
 * sbxd writes the run (struct exec_spec without its descriptors) into a
 * sealed memfd and sends it, with the folder's .sandbox fd, over a
 * private SOCK_SEQPACKET socket; the spare passes the same memfd on to
 * its child. Each reads it back with handoff_decode(), which checks
 * every length and terminator: a short, long or unterminated run is
 * refused, never read past. Messages are one datagram each and never
 * block the sender.
 *
 * Library code: nothing here prints or exits.
 */
#ifndef SBX_HANDOFF_H
#define SBX_HANDOFF_H

#include <stddef.h>

#include "daemon/exec.h"

/* A run read back: s's strings and env point into buf and env (owned;
 * handoff_free). s.sbfd is -1 and s has no fds to close. */
struct handoff_run {
	struct exec_spec s;
	char *buf;
	char **env;
};

/* The run s in a sealed memfd (close-on-exec): the fd, or -1. */
int handoff_encode(const struct exec_spec *s);

/* Reads back a run from fd. 0, or -1 (nothing kept). */
int handoff_decode(int fd, struct handoff_run *r);

void handoff_free(struct handoff_run *r);

/* Sends len bytes and up to 2 fds as one message, without blocking.
 * 0 or -1. */
int handoff_send(int sock, const void *data, size_t len, const int *fds, int nfds);

/* Receives one message that must be exactly len bytes with exactly
 * nfds fds (close-on-exec); blocks. 0, or -1 (the peer's end, an error,
 * another shape: any fd that came is closed). */
int handoff_recv(int sock, void *data, size_t len, int *fds, int nfds);

#endif
