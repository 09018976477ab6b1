/*
 * test_policy_git.c - git as an attacker drives it: options that run code
 * (-c, --config-env, --exec-path, --upload-pack, rebase --exec, ...),
 * paths it writes (-C, --git-dir, clone DIR, archive -o, format-patch -o,
 * bundle create, diff --output), every form of an option value (attached,
 * "=", separate, an abbreviation git accepts, a cluster) and the words
 * after "--", which are paths and never options. Commands run from inside
 * a temporary project folder, with the built-in defaults and with a
 * policy that allows github.com.
 */
#include "policy/policy.h"
#include "tests/tap.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define A POLICY_ALLOW
#define E POLICY_ESCALATE
#define D POLICY_DENY

static char base[256], folder[PATH_MAX], home[PATH_MAX], cfg[PATH_MAX];

static struct policy_result
judge(const struct policy *p, const char *cmd)
{
	struct policy_result r;
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "command", cmd);
	memset(&c, 0, sizeof(c));
	c.tool = "Bash";
	c.input = in;
	c.cwd = folder;
	c.folder = folder;
	c.home = home;
	c.config_dir = cfg;
	policy_eval(p, &c, &r);
	cJSON_Delete(in);
	return r;
}

struct tcase {
	const char *cmd;
	enum policy_verdict want;
	const char *why;        /* a part of the reason, or NULL */
};

/* With the built-in defaults. */
static const struct tcase cases[] = {
	/* words after "--" are paths: "-s", "-b" and "--source" take no
	 * value there, and the protected path after them is seen */
	{ "git checkout -- -s .sandbox/policy.json", D, NULL },
	{ "git checkout -- -b .claude/settings.json", D, NULL },
	{ "git restore -- --source .mcp.json", D, NULL },
	{ "git restore -s HEAD -- .sandbox/policy.json", D, NULL },
	{ "git checkout -- .mcp.json", D, NULL },
	/* ... and a path that reads like an option is for a human */
	{ "git checkout -- -o", E, NULL },
	{ "git checkout -- --output=x", E, NULL },
	{ "git log -- -o", E, "looks like an option" },
	{ "git diff -- --output=/etc/x", E, NULL },
	{ "git log -- src", A, NULL },
	{ "git diff HEAD -- src/a.c", A, NULL },
	/* options and environment that run code */
	{ "git -c core.pager='sh -c id' log", E, "runs a command" },
	{ "git -c alias.x='!id' x", E, NULL },
	{ "git -c core.sshCommand='sh -c id' fetch", E, NULL },
	{ "git -c core.fsmonitor=./x status", E, NULL },
	{ "git --config-env=core.pager=X log", E, NULL },
	{ "git --config-env core.pager=X log", E, NULL },
	{ "git --exec-path=/tmp/x status", E, NULL },
	{ "git --exec-path /tmp/x status", E, NULL },
	{ "GIT_SSH_COMMAND='sh -c id' git fetch", E, NULL },
	{ "GIT_CONFIG_PARAMETERS=\"'core.pager=id'\" git log", E, NULL },
	{ "GIT_EXEC_PATH=/tmp/x git status", E, NULL },
	{ "git clone --upload-pack='touch x' https://example.com/r", E, "run" },
	{ "git clone -u 'touch x' https://example.com/r", E, "run" },
	{ "git clone --upl='touch x' https://example.com/r", E, "run" },
	{ "git fetch --upload-pack='touch x' origin", E, "run" },
	{ "git fetch --upl='touch x' origin", E, "run" },
	{ "git pull --upload-pack 'touch x'", E, "run" },
	{ "git ls-remote --exec='touch x' origin", E, "run" },
	{ "git clone --template=/tmp/t https://example.com/r", E, "run" },
	{ "git submodule foreach 'rm -rf ~'", E, "command" },
	{ "git filter-branch --tree-filter 'rm -rf ~' HEAD", E, NULL },
	{ "git bisect run ./x.sh", E, "run" },
	{ "git rebase --exec id HEAD~3", E, "run" },
	{ "git rebase -x id HEAD~3", E, "run" },
	{ "git rebase -xid HEAD~3", E, "run" },
	{ "git rebase -ix id HEAD~3", E, "run" },
	{ "git rebase --exe=id HEAD~3", E, "run" },
	{ "git grep -Ovim x src", E, "run" },
	{ "git grep --open-files=vim x src", E, "run" },
	{ "git diff --ext-diff", E, NULL },
	{ "git log --ext", E, NULL },
	{ "git mergetool", E, NULL },
	{ "git difftool -x 'rm -rf ~'", E, NULL },
	{ "git init --template=./t x", E, "run" },
	/* paths git writes */
	{ "git -C /etc commit -m x", E, NULL },
	{ "git -C / rm -r etc", E, NULL },
	{ "git -C src rm x", A, NULL },
	{ "git -C .sandbox rm policy.json", D, NULL },
	{ "git -C $D add x", E, NULL },
	{ "git --git-dir=$(pwd)/.git status", A, NULL },
	/* the repository git opens: a git dir not named .git (a bare
	 * repository, or one built by hand) holds a config the policy does
	 * not protect, and git obeys it (core.fsmonitor, core.pager) */
	{ "git -C evil log", E, "a git directory not named .git" },
	{ "git -C evil/objects status", E, "not named .git" },
	{ "cd evil && git status", E, "not named .git" },
	{ "cd hand && git log", E, "not named .git" },
	{ "git --git-dir=evil log", E, "--git-dir" },
	{ "git --git-dir evil status", E, "--git-dir" },
	{ "git --git-dir=$X status", E, "--git-dir" },
	{ "git --git-dir=.git status", A, NULL },
	{ "git --git-dir=src/../.git log", A, NULL },
	{ "cd \"$D\" && git status", E, "only known at run time" },
	{ "git -C \"$D\" log", E, "only known at run time" },
	{ "git -C src status", A, NULL },
	{ "git -C sub log", A, NULL },
	{ "cd .git && git log", A, NULL },
	/* ... and how it is made: a gitfile, a bare repository, its files */
	{ "git init --bare x", E, "not in a .git directory" },
	{ "git init --bare", E, "not in a .git directory" },
	{ "git clone --bare https://example.com/r x", E, NULL },
	{ "git clone --mirror https://example.com/r x", E, NULL },
	{ "printf 'gitdir: ../evil' > sub/.git", E, "/**/.git" },
	{ "echo 'gitdir: ../evil' | tee sub/.git", E, "/**/.git" },
	{ "cp x sub/.git", E, NULL },
	{ "mv x sub/.git", E, NULL },
	{ "ln -s ../evil sub/.git", E, NULL },
	{ "mkdir -p x/.git", E, NULL },
	{ "echo ../evil > .git/commondir", E, NULL },
	{ "printf '[core]\\n\\tfsmonitor = id\\n' > evil/config", E,
	  "git repository's own directory" },
	{ "printf '[core]\\n\\tpager = id\\n' > hand/config", E,
	  "git repository's own directory" },
	{ "echo id > evil/hooks/post-checkout", E,
	  "git repository's own directory" },
	{ "echo '* diff=x' > evil/info/attributes", E, NULL },
	{ "cp cfg evil/config", E, NULL },
	{ "cp -r tmpl/. evil", E, NULL },
	{ "sed -i s/x/y/ evil/config", E, NULL },
	{ "echo x > config", A, NULL },
	{ "echo x > src/config", A, NULL },
	{ "git init x", A, NULL },
	{ "cat evil/config", A, NULL },
	{ "git --git-$x=y status", E, "only known at run time" },
	{ "git --git-dir=/etc/x commit -m x", E, NULL },
	{ "git --git-dir /etc/x commit -m x", E, NULL },
	{ "git --work-tree=/etc add x", E, NULL },
	{ "git diff --output=/etc/passwd", E, NULL },
	{ "git diff --outp=/etc/passwd", E, NULL },
	{ "git diff --output /etc/passwd", E, NULL },
	{ "git diff --output=.sandbox/policy.json", D, NULL },
	{ "git log --output .claude/settings.json", D, NULL },
	{ "git show --output=$X HEAD", E, NULL },
	{ "git format-patch -o /etc/x HEAD~1", E, NULL },
	{ "git format-patch -o.sandbox HEAD~1", D, NULL },
	{ "git format-patch -o=/etc/x HEAD~1", E, NULL },
	{ "git commit -F=~/.ssh/id_rsa", E, NULL },
	{ "git format-patch --output-dir=.sandbox HEAD~1", D, NULL },
	{ "git archive -o /etc/x.tar HEAD", E, NULL },
	{ "git archive --output=.mcp.json HEAD", D, NULL },
	{ "git archive --outp=.sandbox/x HEAD", D, NULL },
	{ "git archive -o.sandbox/x HEAD", D, NULL },
	{ "git bundle create .sandbox/x.bundle HEAD", D, NULL },
	{ "git bundle create /etc/x.bundle HEAD", E, NULL },
	{ "git clone https://example.com/r .sandbox", D, NULL },
	{ "git clone https://example.com/r /etc/x", E, NULL },
	{ "git init --shared .sandbox", D, NULL },
	{ "git init -b main .sandbox", D, NULL },
	{ "git init -b main x", A, NULL },
	{ "git worktree add .sandbox/x", D, NULL },
	{ "git mv a .claude/settings.json", D, NULL },
	/* files git reads */
	{ "git commit -F /etc/shadow", E, NULL },
	{ "git commit --fil=/etc/shadow", E, NULL },
	{ "git commit -aF ~/.ssh/id_rsa", E, NULL },
	{ "git --namespace x commit -F /etc/shadow", E, NULL },
	{ "git --namespace x tag -F ~/.aws/credentials v1", E, NULL },
	{ "git blame --cont=/etc/shadow x.c", E, NULL },
	{ "git config -f ~/.aws/credentials --list", E, NULL },
	{ "git config --file=.env --get x.y", E, NULL },
	{ "git show HEAD:.env", E, NULL },
	/* ... every option that names a file git reads, in every form */
	{ "git grep --file=/etc/shadow x", E, "/etc/shadow" },
	{ "git grep --file /etc/shadow x", E, "/etc/shadow" },
	{ "git grep --fil=/etc/shadow x", E, "/etc/shadow" },
	{ "git grep -f/etc/shadow x", E, "/etc/shadow" },
	{ "git grep -if /etc/shadow x", E, "/etc/shadow" },
	{ "git diff --orderfile=/etc/shadow", E, "/etc/shadow" },
	{ "git log -p --orderfile ~/.ssh/id_rsa", E, NULL },
	{ "git show --orderf=/etc/shadow", E, "/etc/shadow" },
	{ "git ls-files --exclude-from=/etc/shadow", E, "/etc/shadow" },
	{ "git ls-files -X/etc/shadow", E, "/etc/shadow" },
	{ "git ls-files -oX /etc/shadow", E, "/etc/shadow" },
	{ "git blame --ignore-revs-file=/etc/shadow x.c", E, "/etc/shadow" },
	{ "git blame -S /etc/shadow x.c", E, "/etc/shadow" },
	{ "git format-patch --signature-file=/etc/shadow HEAD~1", E, NULL },
	{ "git tag -a -F /etc/shadow v1", E, "/etc/shadow" },
	{ "git merge --file=/etc/shadow x", E, "/etc/shadow" },
	/* ... and the paths a file lists, which git then acts on */
	{ "git add --pathspec-from-file=list", E, "list" },
	{ "git rm --pathspec-from-file list", E, "list" },
	{ "git checkout --pathspec-from-file=list", E, "list" },
	{ "git restore --pathspec-f=list", E, NULL },
	{ "git reset --pathspec-from-file=list", E, "list" },
	{ "git commit --pathspec-from-file=list -m x", E, "list" },
	{ "git stash push --pathspec-from-file=list", E, "list" },
	{ "git ls-files -o --exclude-standard", A, NULL },      /* --others */
	{ "echo ~/.ssh/id_rsa | git hash-object -w --stdin-paths", E, NULL },
	{ "git hash-object --stdin-p < list", E, NULL },
	{ "git hash-object -w ~/.ssh/id_rsa", E, NULL },
	{ "git hash-object src/a.c", A, NULL },
	{ "git grep -f patterns.txt x src", A, NULL },
	/* git grep reads every file below its pathspecs (default: the
	 * working directory), as grep -r: the project's .env */
	{ "git grep SECRET", E, "every file" },         /* stricter */
	{ "git grep -e SECRET -- .", E, "every file" }, /* stricter */
	{ "git grep -f patterns.txt x", E, "every file" },      /* stricter */
	{ "git grep SECRET HEAD", E, "every file" },    /* stricter: a tree */
	{ "git grep SECRET -- ':/'", E, "every file" }, /* stricter: the top */
	{ "git grep SECRET -- 's*'", E, "every file" }, /* stricter: a glob */
	{ "git grep SECRET -- '*.env'", E, "every file" },      /* stricter */
	{ "git --icase-pathspecs grep SECRET -- '*.ENV'", E, NULL }, /* stricter */
	{ "git grep SECRET -- ':(icase)*.ENV'", E, NULL },      /* stricter */
	{ "git grep SECRET -- '*.ENV'", A, NULL },
	{ "git grep --no-index SECRET", E, "every file" },      /* stricter */
	{ "git grep --untracked -n SECRET", E, "every file" },  /* stricter */
	{ "git -C sub grep SECRET ..", E, "every file" },       /* stricter */
	{ "git --work-tree=. grep SECRET src", E, "every file" },  /* stricter */
	{ "git --work-tree=\"$W\" grep SECRET src", E, NULL },
	{ "git grep SECRET ~/.ssh", E, NULL },
	{ "GIT_DIR=x git grep SECRET src", E, NULL },
	{ "git -c core.pager=x grep SECRET src", E, NULL },
	{ "git grep SECRET src", A, NULL },
	{ "git grep SECRET HEAD -- src", A, NULL },
	{ "git grep SECRET -- '*.c'", A, NULL },
	{ "git grep -n -A 3 --max-depth 2 SECRET src", A, NULL },
	{ "git -C src grep SECRET", A, NULL },
	/* the names of tracked files feeding a reader: every file counts */
	{ "git ls-files | xargs cat", E, "names secrets" },     /* stricter */
	{ "git ls-files -z | xargs -0 cat", E, NULL },  /* stricter */
	{ "cat $(git ls-files)", E, NULL },             /* stricter */
	{ "git ls-tree -r --name-only HEAD | xargs cat", E, NULL },  /* stricter */
	{ "git diff --name-only | xargs cat", E, NULL },        /* stricter */
	{ "git ls-files src | xargs cat", A, NULL },
	{ "git ls-files '*.c' | xargs cat", A, NULL },
	{ "git ls-files", A, NULL },
	/* status and check-ignore list names too (untracked, ignored) */
	/* (cut's output is no lister's: xargs's names are unknown, which
	 * escalates first) */
	{ "git status --porcelain --ignored | cut -c4- | xargs cat", E,
	    "cannot see" },
	{ "git status -s | cut -c4- | xargs cat", E, NULL },
	{ "cat $(git status --porcelain | cut -c4-)", E, NULL },
	{ "cd src && git status --porcelain | xargs cat", E, NULL },
	{ "git check-ignore -v sub | xargs cat", E, NULL },
	{ "git status --porcelain | grep M", A, NULL },
	{ "git status --short", A, NULL },
	{ "git diff --name-only", A, NULL },
	/* diff --no-index compares paths: trees are read */
	{ "git diff --no-index .env /dev/null", E, NULL },
	{ "git diff --no-index -- . ../x", E, "every file" },   /* stricter */
	{ "git diff --no-index src sub", A, NULL },
	/* ... and so does diff without it: a path outside the work tree, or
	 * no repository (git's implicit --no-index) */
	{ "git diff /tmp/empty .", E, NULL },
	{ "git diff ../home .env", E, NULL },
	{ "git diff --numstat /tmp/empty . | cut -f3 | xargs cat", E, NULL },
	{ "cd ../home && git diff .ssh x", E, NULL },
	{ "git diff /tmp/empty src", A, NULL },
	{ "git diff HEAD .", A, NULL },         /* both inside: a pathspec */
	{ "git diff /tmp/empty . --stat", A, NULL },    /* three words */
	/* objects named on the input */
	{ "git cat-file --batch < list", E, "list" },   /* stricter */
	{ "git cat-file --batch-command", E, NULL },    /* stricter */
	{ "git cat-file --batch-check < list", A, NULL },
	{ "git cat-file -p HEAD:./.env", E, NULL },
	/* REV:PATH: the PATH starts after a ':' only git knows */
	{ "git show :0:.env", E, NULL },
	{ "git cat-file -p :0:.env", E, NULL },
	{ "git show 'HEAD^{/[:]?}:.env'", E, NULL },
	{ "git show 'HEAD@{2030-01-01 00:00:00}:.env'", E, NULL },
	{ "git show :0:src/a.c", A, NULL },
	{ "git show 'HEAD@{2030-01-01 00:00:00}:src/a.c'", A, NULL },
	/* git add puts a file's content where cat-file -p HASH shows it */
	{ "git add .env", E, NULL },                    /* stricter */
	{ "git add -f -- .env", E, NULL },              /* stricter */
	{ "git stage .e*", E, NULL },                   /* stricter */
	{ "git add src/a.c", A, NULL },
	/* add -f: .gitignore no longer keeps a secret out of the index */
	{ "git add -f .", E, NULL },
	{ "git add --force -A", E, NULL },
	{ "git add --forc .", E, NULL },
	{ "git add -fA", E, NULL },
	{ "git add -f sub", A, NULL },
	{ "git add -f src/a.c", A, NULL },
	{ "git add -A", A, NULL },
	{ "git diff --orderfile=order.txt", A, NULL },
	/* work that cannot be restored: abbreviations and clusters */
	{ "git reset --hard", E, "discards" },
	{ "git reset --har", E, "discards" },
	{ "git reset --soft HEAD~1", A, NULL },
	{ "git switch --discard main", E, "discards" },
	{ "git checkout --forc main", E, "discards" },
	{ "git branch -D x", E, "discards" },
	{ "git branch -qD x", E, "discards" },
	{ "git branch -d x", A, NULL },
	{ "git tag -fd v1", E, "discards" },
	{ "git tag --delete v1", E, "discards" },
	{ "git tag v1", A, NULL },
	{ "git clean -n", A, NULL },
	{ "git clean -fdn", E, "discards" },
	{ "git clean -f -- -n", E, NULL },
	{ "git stash --include-u", E, "stash" },
	{ "git stash -ku", E, "stash" },
	{ "git push origin :main", E, NULL },
	{ "git apply --check --apply p.diff", E, "patch" },
	{ "git apply --stat --app p.diff", E, "patch" },
	{ "git clean -n -f", A, NULL },
	{ "git restore --staged --worktree f", E, "discards" },
	/* actions: the first operand, after options */
	{ "git submodule --quiet foreach 'rm -rf ~'", E, "command string" },
	{ "git bisect $a ./x.sh", E, "run time" },
	{ "git remote -v add x /tmp/x", E, "configuration" },
	{ "git stash -q drop", E, "discards" },
	{ "git stash push -- .claude/settings.json", D, NULL },
	{ "git stash push -m x .mcp.json", D, NULL },
	{ "git stash push src/a.c", A, NULL },
	{ "git worktree add -b x .sandbox/wt", D, NULL },
	{ "git reflog -n 5", A, NULL },
	{ "git remote -v", A, NULL },
	{ "git config get user.name", A, NULL },
	/* what stays allowed */
	{ "git status", A, NULL },
	{ "git -C src status", A, NULL },
	{ "git --no-pager log -p", A, NULL },
	{ "git log --format=%H -n 5", A, NULL },
	{ "git commit -m 'a -F message'", A, NULL },
	{ "git commit -am x", A, NULL },
	{ "git checkout -b feat", A, NULL },
	{ "git restore --staged f", A, NULL },
	{ "git apply --check p.diff", A, NULL },
	{ "git config --get user.name", A, NULL },
	{ "git branch --list", A, NULL },
	{ "git stash list", A, NULL },
	{ "git worktree list", A, NULL },
	{ "git maintenance run", A, NULL },
	{ "git log --help", A, NULL },
	{ "git --version", A, NULL },
};

/* With github.com allowed: the network passes, what git writes does not. */
static const struct tcase net_cases[] = {
	{ "git clone https://github.com/x/y", A, NULL },
	{ "git clone https://github.com/x/y src/y", A, NULL },
	{ "git clone --depth 1 https://github.com/x/y", A, NULL },
	{ "git clone https://github.com/x/y .claude", D, NULL },
	{ "git clone https://github.com/x/y .sandbox/x", D, NULL },
	{ "git clone --depth 1 https://github.com/x/y /etc/x", E, NULL },
	{ "git clone https://github.com/x/y ~/.ssh", E, NULL },
	{ "git clone -c core.hooksPath=h https://github.com/x/y", E, NULL },
	{ "git clone --upl=x https://github.com/x/y", E, NULL },
	{ "git clone --recurse-submodules https://github.com/x/y", E, NULL },
	{ "git clone --recursive https://github.com/x/y", E, NULL },
	{ "git pull --recurse-submodules=yes https://github.com/x/y", E, NULL },
	{ "git clone --separate-git-dir=/tmp/g https://github.com/x/y", E, NULL },
	{ "git clone --bare https://github.com/x/y", E, "not in a .git" },
	{ "git clone --mirror https://github.com/x/y y.git", E, NULL },
};

static void
run(const struct policy *p, const struct tcase *t, size_t n, const char *what)
{
	struct policy_result r;
	size_t k;

	for (k = 0; k < n; k++) {
		r = judge(p, t[k].cmd);
		is_int(r.verdict, t[k].want, "%s: %s -> %s (%s)", what, t[k].cmd,
		    policy_verdict_name(r.verdict), r.reason);
		if (t[k].why != NULL)
			ok(strstr(r.reason, t[k].why) != NULL,
			    "%s: the reason for %s names \"%s\"", what, t[k].cmd,
			    t[k].why);
	}
}

static void
mk(const char *rel, int dir)
{
	char p[PATH_MAX * 2];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (dir) {
		mkdir(p, 0700);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	if (fd >= 0)
		close(fd);
}

static struct policy *
load(const char *text)
{
	struct policy_error err;
	struct policy *p;

	p = policy_load_buffer("test", text, strlen(text), folder, cfg, &err);
	if (p == NULL)
		printf("# policy: %s\n", err.msg);
	return p;
}

int
main(void)
{
	char tmpl[] = "/tmp/sbx-test-git-XXXXXX", *b = mkdtemp(tmpl);
	static const char *const dirs[] = {
		"proj", "proj/.sandbox", "proj/.git", "proj/.claude", "proj/src",
		"proj/sub", "proj/evil", "proj/evil/objects", "proj/evil/refs",
		"proj/evil/hooks", "proj/evil/info", "proj/hand",
		"proj/hand/objects", "human.git", "human.git/objects",
		"home", "home/.ssh", "home/.aws", "home/.config",
		"home/.config/sbx", NULL,
	};
	static const char *const files[] = {
		"proj/.sandbox/policy.json", "proj/.git/config", "proj/.mcp.json",
		"proj/.claude/settings.json", "proj/.env", "home/.ssh/id_rsa",
		"proj/evil/HEAD", "proj/evil/config", "proj/hand/HEAD",
		"human.git/HEAD",
		"home/.aws/credentials", NULL,
	};
	struct policy *p;
	int k;

	if (b == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(base, sizeof(base), "%s", b);
	for (k = 0; dirs[k] != NULL; k++)
		mk(dirs[k], 1);
	for (k = 0; files[k] != NULL; k++)
		mk(files[k], 0);
	snprintf(folder, sizeof(folder), "%s/proj", base);
	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(cfg, sizeof(cfg), "%s/home/.config/sbx", base);
	p = load(policy_default_text());
	ok(p != NULL, "the built-in defaults load");
	if (p != NULL) {
		run(p, cases, sizeof(cases) / sizeof(cases[0]), "defaults");
		/* a bare repository the agent could not have written (outside
		 * the project and the temp dir) is a human's: it passes */
		{
			struct tcase out[3];
			char c1[PATH_MAX + 64], c2[PATH_MAX + 64], c3[PATH_MAX + 64];

			snprintf(c1, sizeof(c1), "git -C %s/human.git log", base);
			snprintf(c2, sizeof(c2), "git --git-dir=%s/human.git log",
			    base);
			snprintf(c3, sizeof(c3), "cd %s/human.git/objects && git "
			    "status", base);
			out[0] = (struct tcase){ c1, A, NULL };
			out[1] = (struct tcase){ c2, A, NULL };
			out[2] = (struct tcase){ c3, A, NULL };
			run(p, out, 3, "outside the project");
		}
		policy_free(p);
	}
	p = load("{\"network\": {\"allowedDomains\": [\"github.com\"]}}");
	ok(p != NULL, "a policy allowing github.com loads");
	if (p != NULL) {
		run(p, net_cases, sizeof(net_cases) / sizeof(net_cases[0]),
		    "github.com allowed");
		policy_free(p);
	}
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return tap_done();
}
