/*
 * test_idle.c - sbxd's records of idle folders (daemon/idle.c), on real
 * files: what is saved is read back exactly; a missing record is "none"
 * (-1); every other record that is not exactly one intact record of this
 * path, made with this key, is refused (-2) without blocking or
 * following anything: a byte changed, cut short or grown, another
 * folder's, another key's, group-readable, a symlink, a hard link, a
 * fifo. The directory is made 0700 and refused when others can use it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/idle.c"
#include "tests/tap.h"

static char dir[] = "/tmp/sbx-test-idle.XXXXXX";
static char rec_path[PATH_MAX];

static void
sample(struct idle_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->dev = 42;
	r->ino_folder = 7;
	r->ino_sub[11] = 99;
	r->db.st_ino = 1234;
	r->db.st_size = 8192;
	r->db.st_ctim.tv_nsec = 5;
	r->seen = 1700000000;
	r->due_prune = 1800000000;
	r->keep_s = 30 * 86400;
	r->tail.seq = 4242;
	r->tail.hash[31] = 0xab;
	r->tail.head_seq = 4241;
	r->tail.head_off = 1000;
	r->tail.size = 1500;
	r->tail.intents = 17;
	r->tail.seg_no = 3;
	r->tail_ok = 1;
}

/* The file the record of path is kept in. */
static const char *
file_of(const char *path)
{
	char name[33];
	unsigned char h[32];

	idle_name(path, name, h);
	snprintf(rec_path, sizeof(rec_path), "%s/idle/%s", dir, name);
	return rec_path;
}

/* Rewrites the record file with len bytes of buf (mode 0600). */
static void
put(const char *file, const void *buf, size_t len)
{
	int fd;

	unlink(file);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		perror(file);
	if (fd >= 0)
		close(fd);
}

int
main(void)
{
	unsigned char sk[64], sk2[64];
	struct idle_rec r, got, bad;
	char other[PATH_MAX], cmd[PATH_MAX + 16];
	const char *f;
	struct stat st;
	char big[sizeof(struct idle_rec) + 1];

	if (sodium_init() < 0 || !mkdtemp(dir))
		return 1;
	randombytes_buf(sk, sizeof(sk));
	randombytes_buf(sk2, sizeof(sk2));

	is_int(idle_load("/p", &got), -1, "no directory opened: no record");
	is_int(idle_init(dir, sk), 0, "idle_init makes CONFIG/idle");
	ok(stat(strcat(strcpy(other, dir), "/idle"), &st) == 0 && (st.st_mode & 0777) == 0700,
	    "... mode 0700");
	is_int(idle_load("/p", &got), -1, "a folder without a record: none (-1)");

	sample(&r);
	is_int(idle_save("/p", &r), 0, "a record is saved");
	f = file_of("/p");
	ok(stat(f, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == sizeof(r),
	    "... as one 0600 file of the record's size");
	memset(&got, 0xff, sizeof(got));
	is_int(idle_load("/p", &got), 0, "... and read back");
	ok(memcmp(&got, &r, sizeof(r)) == 0, "... exactly");
	ok(got.tail_ok == 1 && got.tail.seq == 4242 && got.tail.head_off == 1000 &&
	    got.tail.hash[31] == 0xab, "... with the audit log's tail");
	is_int(idle_load("/q", &got), -1, "another folder has none");

	/* A byte changed anywhere before the hash: refused. */
	memcpy(&bad, &r, sizeof(r));
	((unsigned char *)&bad)[offsetof(struct idle_rec, db) + 8] ^= 1;
	put(f, &bad, sizeof(bad));
	is_int(idle_load("/p", &got), -2, "a byte changed: refused (-2)");
	memcpy(&bad, &r, sizeof(r));
	bad.due_prune = 0;
	put(f, &bad, sizeof(bad));
	is_int(idle_load("/p", &got), -2, "retention made due never: refused");
	/* The audit tail is kept under the same keyed hash. */
	memcpy(&bad, &r, sizeof(r));
	bad.tail.seq++;
	put(f, &bad, sizeof(bad));
	is_int(idle_load("/p", &got), -2, "the audit tail's last seq changed: refused");
	memcpy(&bad, &r, sizeof(r));
	bad.tail.head_off = 0;
	put(f, &bad, sizeof(bad));
	is_int(idle_load("/p", &got), -2, "the audit tail's head offset changed: refused");
	memcpy(&bad, &r, sizeof(r));
	bad.tail_ok = 0;
	put(f, &bad, sizeof(bad));
	is_int(idle_load("/p", &got), -2, "the tail marked unknown: refused");
	memcpy(&bad, &r, sizeof(r));
	memcpy(bad.magic, "sbxd-idle-1", 12);
	idle_mac(&bad, bad.mac);
	put(f, &bad, sizeof(bad));
	is_int(idle_load("/p", &got), -2, "an older record's magic (keyed anew): refused");
	put(f, &r, sizeof(r) - 1);
	is_int(idle_load("/p", &got), -2, "cut short by a byte: refused");
	memcpy(big, &r, sizeof(r));
	big[sizeof(r)] = 'x';
	put(f, big, sizeof(big));
	is_int(idle_load("/p", &got), -2, "a byte more: refused");
	put(f, "", 0);
	is_int(idle_load("/p", &got), -2, "empty: refused");

	/* Another folder's intact record put in this one's place. */
	sample(&r);
	is_int(idle_save("/q", &r), 0, "folder /q's record saved");
	snprintf(other, sizeof(other), "%s", file_of("/q"));
	f = file_of("/p");
	{
		int in = open(other, O_RDONLY);
		ssize_t n = in >= 0 ? read(in, &bad, sizeof(bad)) : -1;

		if (in >= 0)
			close(in);
		put(f, &bad, n > 0 ? (size_t)n : 0);
	}
	is_int(idle_load("/p", &got), -2, "another folder's record in its place: refused");
	is_int(idle_load("/q", &got), 0, "... which is still /q's");

	/* Another key (another sbxd, or one forged without the key). */
	sample(&r);
	is_int(idle_save("/p", &r), 0, "saved again");
	is_int(idle_init(dir, sk2), 0, "a second key");
	is_int(idle_load("/p", &got), -2, "a record made with another key: refused");
	is_int(idle_init(dir, sk), 0, "the first key again");
	is_int(idle_load("/p", &got), 0, "... it is read");

	/* Not exactly one private regular file. */
	chmod(f, 0640);
	is_int(idle_load("/p", &got), -2, "group-readable: refused");
	chmod(f, 0600);
	ok(link(f, strcat(strcpy(other, dir), "/hard")) == 0, "(a hard link made)");
	is_int(idle_load("/p", &got), -2, "a hard link to it: refused");
	unlink(other);
	rename(f, strcat(strcpy(other, dir), "/real"));
	ok(symlink(other, f) == 0, "(a symlink to a valid record)");
	is_int(idle_load("/p", &got), -2, "a symlink: refused (not followed)");
	unlink(f);
	ok(mkfifo(f, 0600) == 0, "(a fifo)");
	is_int(idle_load("/p", &got), -2, "a fifo: refused, without blocking");
	unlink(f);

	/* Forgotten. */
	sample(&r);
	is_int(idle_save("/p", &r), 0, "saved");
	idle_forget("/p");
	is_int(idle_load("/p", &got), -1, "forgotten: none");

	/* A directory others can use is refused. */
	chmod(strcat(strcpy(other, dir), "/idle"), 0770);
	is_int(idle_init(dir, sk), -1, "CONFIG/idle group-writable: refused");
	is_int(idle_load("/p", &got), -1, "... and no record is read");

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
