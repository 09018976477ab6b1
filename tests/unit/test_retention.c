/*
 * test_retention.c - common/store/retention.c on a real SQLite database and a
 * real directory: only finished, delivered requests are pruned, oldest
 * delivery first, in bounded batches, by days and by the size cap; a
 * table written by an older sbxd is upgraded and measured.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/store/retention.h"
#include "tests/tap.h"

static char dir[64];
static int sbfd = -1;

static void
put(const char *path, size_t bytes)
{
	char *buf = calloc(1, bytes + 1);
	int fd = openat(sbfd, path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd >= 0 && buf && write(fd, buf, bytes) != (ssize_t)bytes)
		fprintf(stderr, "short write\n");
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* Whether DIR/ID.EXT exists. */
static int
exists_f(const char *d, const char *id, const char *ext)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/%s.%s", d, id, ext);
	return faccessat(sbfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A finished request with `bytes` of stdout, in done/. */
static void
finished(sqlite3 *db, const char *id, const char *status, size_t bytes)
{
	char path[64], sql[160];

	snprintf(sql, sizeof(sql), "INSERT INTO requests (id, status) VALUES ('%s', '%s')", id,
	    status);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	snprintf(path, sizeof(path), "results/%s.json", id);
	put(path, 100);
	snprintf(path, sizeof(path), "results/%s.stdout", id);
	put(path, bytes);
	snprintf(path, sizeof(path), "done/%s.json", id);
	put(path, 100);
}

static const char *
id_of(int i)
{
	static char id[17];

	snprintf(id, sizeof(id), "%016x", 0xa0000 + i);
	return id;
}

static sqlite3 *
fresh_db(void)
{
	char path[128];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/state.db", dir);
	unlink(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return NULL;
	sqlite3_exec(db, "CREATE TABLE requests (id TEXT PRIMARY KEY, status TEXT)", NULL, NULL,
	    NULL);
	return db;
}

static void
test_days(void)
{
	struct retention_pass rp;
	sqlite3 *db = fresh_db();
	int i;

	ok(db && retention_init(db) == 0, "retention_init creates the table");
	for (i = 0; i < 10; i++) {
		finished(db, id_of(i), "done", 10);
		retention_delivered(db, sbfd, id_of(i), 1000 + i);
	}
	/* Not finished, though delivered long ago: never pruned. */
	finished(db, id_of(20), "running", 10);
	retention_delivered(db, sbfd, id_of(20), 1);
	finished(db, id_of(21), "pending", 10);
	retention_delivered(db, sbfd, id_of(21), 1);
	is_int(retention_prune(db, sbfd, 100, 0, 2000, 3, &rp), 3,
	    "a pass prunes at most its batch (3 of 10 due)");
	is_int(rp.by_days, 3, "all three by days");
	ok(!exists_f("results", id_of(0), "json") && !exists_f("done", id_of(2), "json") &&
	    exists_f("results", id_of(3), "json"), "the oldest deliveries went first");
	const char *why = NULL;
	ok(retention_pruned_at(db, id_of(0), &why) == 2000 && why && !strcmp(why, "days"),
	    "retention_pruned_at says when, and that days pruned it");
	is_int(retention_pruned_at(db, id_of(5), NULL), 0, "an unpruned request says 0");
	is_int(retention_prune(db, sbfd, 100, 0, 2000, RETENTION_BATCH, &rp), 7,
	    "the next pass prunes the rest that is due");
	ok(exists_f("results", id_of(20), "json") && exists_f("results", id_of(21), "json"),
	    "a running or pending request is never pruned");
	/* Due, finished, but back in pending/ (not delivered): kept. */
	finished(db, id_of(30), "done", 10);
	retention_delivered(db, sbfd, id_of(30), 5);
	put("pending/00000000000a001e.json", 10);
	is_int(retention_prune(db, sbfd, 100, 0, 2000, RETENTION_BATCH, &rp), 0,
	    "a due request back in pending/ is not pruned ...");
	ok(exists_f("results", id_of(30), "json") && retention_pruned_at(db, id_of(30), NULL) == 0,
	    "... but its output is kept and it is not marked pruned");
	unlinkat(sbfd, "pending/00000000000a001e.json", 0);
	sqlite3_close(db);
}

static void
test_size(void)
{
	struct retention_pass rp;
	sqlite3 *db = fresh_db();
	const char *why = NULL;
	int i;

	retention_init(db);
	/* 8 delivered requests of 1,200 bytes each (1,000 + 2 x 100), all
	 * within their days of retention. */
	for (i = 40; i < 48; i++) {
		finished(db, id_of(i), "done", 1000);
		retention_delivered(db, sbfd, id_of(i), 5000);   /* the same second */
	}
	is_int(retention_prune(db, sbfd, 86400, 0, 6000, RETENTION_BATCH, &rp), 0,
	    "without a size cap, nothing is due");
	is_int(retention_prune(db, sbfd, 86400, 6000, 6000, 2, &rp), 2,
	    "over the cap (9,600 > 6,000 bytes), a pass still prunes at most its batch");
	is_int(rp.by_size, 2, "both by size");
	is_int(rp.bytes, 2400, "the pass counts their bytes");
	is_int(rp.kept_bytes, 7200, "and what is left");
	ok(!exists_f("results", id_of(40), "stdout") && !exists_f("results", id_of(41), "stdout") &&
	    exists_f("results", id_of(42), "stdout"),
	    "the first deliveries went first (same second: in order of delivery)");
	ok(retention_pruned_at(db, id_of(40), &why) == 6000 && why && !strcmp(why, "size"),
	    "retention_pruned_at says the size cap pruned it");
	is_int(retention_prune(db, sbfd, 86400, 6000, 6000, RETENTION_BATCH, &rp), 1,
	    "the next pass prunes only what brings it under the cap");
	is_int(rp.kept_bytes, 6000, "6,000 bytes are kept, not more");
	is_int(retention_prune(db, sbfd, 86400, 6000, 6000, RETENTION_BATCH, &rp), 0,
	    "under the cap, nothing more");
	sqlite3_close(db);
}

/*
 * Requests held back (back in pending/: planted there, or a race with a
 * restart) are kept, and neither fill a batch nor count as freed: the
 * cap is met with the others, and a backlog behind them goes on.
 */
static void
test_held_back(void)
{
	struct retention_pass rp;
	sqlite3 *db = fresh_db();
	char path[64];
	int i;

	retention_init(db);
	/* 6 delivered, 1,200 bytes each; the two oldest are back in pending/. */
	for (i = 50; i < 56; i++) {
		finished(db, id_of(i), "done", 1000);
		retention_delivered(db, sbfd, id_of(i), 7000 + i);
	}
	for (i = 50; i < 52; i++) {
		snprintf(path, sizeof(path), "pending/%s.json", id_of(i));
		put(path, 10);
	}
	/* 7,200 bytes kept, cap 5,000: the held-back 2,400 stay, so two of
	 * the others must go (4,800 left ... not under it with one). */
	is_int(retention_prune(db, sbfd, 86400, 5000, 8000, RETENTION_BATCH, &rp), 2,
	    "over the cap with the oldest held back: the next ones are pruned");
	ok(exists_f("results", id_of(50), "stdout") && exists_f("results", id_of(51), "stdout"),
	    "the held-back requests are kept");
	ok(!exists_f("results", id_of(52), "stdout") && !exists_f("results", id_of(53), "stdout") &&
	    exists_f("results", id_of(54), "stdout"), "the two oldest of the others went");
	is_int(rp.kept_bytes, 4800, "the cap is met: 4,800 bytes kept");
	is_int(retention_prune(db, sbfd, 86400, 5000, 8000, RETENTION_BATCH, &rp), 0,
	    "then nothing more");
	/* By days, with a batch of 2: the held-back two do not fill it. */
	is_int(retention_prune(db, sbfd, 100, 0, 9000, 2, &rp), 2,
	    "by days, a batch of 2 behind two held-back requests prunes two others");
	is_int(rp.by_days, 2, "both by days");
	ok(exists_f("results", id_of(50), "stdout") && !exists_f("results", id_of(55), "stdout"),
	    "the held-back ones are still kept; the others are gone");
	for (i = 50; i < 52; i++) {
		snprintf(path, sizeof(path), "pending/%s.json", id_of(i));
		unlinkat(sbfd, path, 0);
	}
	sqlite3_close(db);
}

static void
test_upgrade(void)
{
	struct retention_pass rp;
	sqlite3 *db = fresh_db();
	int i;

	/* The table as an older sbxd made it: no sizes. */
	sqlite3_exec(db, "CREATE TABLE retention (request TEXT PRIMARY KEY, delivered INTEGER"
	    " NOT NULL, pruned INTEGER)", NULL, NULL, NULL);
	for (i = 60; i < 64; i++) {
		char sql[160];

		finished(db, id_of(i), "done", 3000);
		snprintf(sql, sizeof(sql), "INSERT INTO retention VALUES ('%s', %d, NULL)",
		    id_of(i), 100 + i);
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	ok(retention_init(db) == 0, "an older table is upgraded");
	is_int(retention_prune(db, sbfd, 86400, 7000, 1000, RETENTION_BATCH, &rp), 2,
	    "its rows are measured, and the oldest pruned past the cap");
	ok(!exists_f("results", id_of(60), "stdout") && !exists_f("results", id_of(61), "stdout") &&
	    exists_f("results", id_of(62), "stdout"), "oldest first");
	sqlite3_close(db);
}

/*
 * retention_adopt: requests in done/ without a row (delivered before sbxd
 * knew of retention, or a row a crash lost) get one, measured; those
 * with a row keep it as it is, and their files are not looked at.
 */
static void
test_adopt(void)
{
	sqlite3 *db = fresh_db();
	sqlite3_stmt *st;
	int64_t when = -1, bytes = -1;
	struct dirent *de;
	DIR *d;
	int dfd;

	/* done/ holds only this test's requests */
	if ((dfd = openat(sbfd, "done", O_RDONLY | O_DIRECTORY)) >= 0 && (d = fdopendir(dfd))) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	retention_init(db);
	finished(db, id_of(70), "done", 1000);
	retention_delivered(db, sbfd, id_of(70), 500);
	finished(db, id_of(71), "done", 2000);
	is_int(retention_adopt(db, sbfd, 9000), 1, "adopt: one request in done/ had no row");
	if (sqlite3_prepare_v2(db, "SELECT delivered, bytes FROM retention WHERE request = ?",
	    -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, id_of(71), -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			when = sqlite3_column_int64(st, 0);
			bytes = sqlite3_column_int64(st, 1);
		}
		is_int(when, 9000, "... adopted as delivered now");
		is_int(bytes, 2200, "... with its files measured");
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, id_of(70), -1, SQLITE_STATIC);
		when = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
		is_int(when, 500, "the one with a row keeps it");
		sqlite3_finalize(st);
	}
	is_int(retention_adopt(db, sbfd, 9100), 0, "a second adopt finds nothing to do");
	sqlite3_close(db);
}

int
main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/sbx-unit-retention.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	sbfd = open(dir, O_RDONLY | O_DIRECTORY);
	mkdirat(sbfd, "results", 0700);
	mkdirat(sbfd, "done", 0700);
	mkdirat(sbfd, "pending", 0700);
	test_days();
	test_size();
	test_held_back();
	test_upgrade();
	test_adopt();
	close(sbfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return tap_done();
}
