/*
 * test_audit_index.c - common/store/audit_index.c on a real SQLite database: a
 * flush writes what was noted, and nothing when nothing is new (sbxd
 * flushes once per pass of its loop: an idle sbxd must not write
 * state.db every second).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/base/util.h"
#include "common/store/audit_index.h"
#include "tests/tap.h"

int
main(void)
{
	char dir[64], path[128], cmd[128];
	struct sbx_err err;
	struct audit_index *x;
	sqlite3 *db = NULL;
	sqlite3_int64 before;
	int sbfd, fd;

	snprintf(dir, sizeof(dir), "/tmp/sbx-unit-aindex.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	sbfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd = openat(sbfd, "audit.jsonl", O_WRONLY | O_CREAT, 0600);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/state.db", dir);
	ok(sqlite3_open(path, &db) == SQLITE_OK, "state.db opened");
	x = audit_index_open(db, sbfd, 0, 0, &err);
	ok(x != NULL, "audit_index_open on an empty log");
	before = sqlite3_total_changes64(db);
	ok(audit_index_flush(x) == 0 && sqlite3_total_changes64(db) == before,
	    "a flush with nothing new writes nothing");
	audit_index_note(x, "0123456789abcdef", 1, 1, 0, 100);
	ok(audit_index_flush(x) == 0 && sqlite3_total_changes64(db) > before,
	    "a flush after a noted record writes it");
	before = sqlite3_total_changes64(db);
	ok(audit_index_flush(x) == 0 && audit_index_flush(x) == 0 &&
	    sqlite3_total_changes64(db) == before, "then two idle flushes write nothing");
	audit_index_note(x, NULL, 2, 1, 100, 80);
	ok(audit_index_flush(x) == 0 && sqlite3_total_changes64(db) > before,
	    "a record that names no request still moves the state");
	audit_index_close(x);
	sqlite3_close(db);
	close(sbfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return tap_done();
}
