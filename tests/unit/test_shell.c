/*
 * test_shell.c - the shell reader: what simple commands a line runs, and
 * how words, quotes and redirections decode.
 */
#include "policy/shell.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>

/* Renders the simple commands of a parse: "a b|c d;" style, for tests. */
static const char *
render(const char *line)
{
	static char out[4096];
	struct sh_parse p;
	size_t o = 0;
	int k, j, rc;

	rc = sh_parse(line, strlen(line), 0, &p);
	out[0] = '\0';
	for (k = 0; k < p.ncmds; k++) {
		const struct sh_cmd *c = &p.cmds[k];

		if (c->kind != SH_SIMPLE)
			continue;
		if (o > 0)
			o += (size_t)snprintf(out + o, sizeof(out) - o, " ; ");
		for (j = 0; j < c->argc; j++) {
			size_t start = o;

			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s[%s]",
			    j ? " " : "", c->argv[j].s);
			/* variable markers show as $ */
			for (; start < o && start < sizeof(out); start++)
				if (out[start] == SH_VAR_MARK)
					out[start] = '$';
		}
		for (j = 0; j < c->nredir; j++)
			o += (size_t)snprintf(out + o, sizeof(out) - o, " R%d:%s",
			    (int)c->redir[j].op, c->redir[j].target.s);
		if (o >= sizeof(out))
			break;
	}
	if (rc < 0)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), " !%s",
		    p.problem);
	sh_parse_free(&p);
	return out;
}

static int
parses(const char *line)
{
	struct sh_parse p;
	int rc = sh_parse(line, strlen(line), 0, &p);

	sh_parse_free(&p);
	return rc == 0;
}

static unsigned
flags0(const char *line, int word)
{
	struct sh_parse p;
	unsigned f = 0;
	int k;

	sh_parse(line, strlen(line), 0, &p);
	/* the last simple command: the outer one */
	for (k = p.ncmds - 1; k >= 0; k--)
		if (p.cmds[k].kind == SH_SIMPLE) {
			if (word < p.cmds[k].argc)
				f = p.cmds[k].argv[word].flags;
			break;
		}
	sh_parse_free(&p);
	return f;
}

int
main(void)
{
	/* lists and pipelines */
	is_str(render("ls -la"), "[ls] [-la]", "simple");
	is_str(render("a; b && c || d & e"), "[a] ; [b] ; [c] ; [d] ; [e]",
	    "lists");
	is_str(render("a | b |& c"), "[a] ; [b] ; [c]", "pipes");
	is_str(render("a\nb\n\nc"), "[a] ; [b] ; [c]", "newlines");
	is_str(render("(cd x && ls) ; { echo y; }"), "[cd] [x] ; [ls] ; [echo] [y]",
	    "subshell and group");
	is_str(render("if true; then ls; else pwd; fi"), "[true] ; [ls] ; [pwd]",
	    "if is seen through");
	is_str(render("for f in a b; do cat $f; done"),
	    "[for] [f] [in] [a] [b] ; [cat] [$^f$]", "for loop");
	is_str(render("while read l; do echo $l; done < in.txt"),
	    "[read] [l] ; [echo] [$^l$] ;  R0:in.txt", "while with redirection");
	/* quoting */
	is_str(render("echo 'a b' \"c d\" e\\ f"), "[echo] [a b] [c d] [e f]",
	    "quotes");
	is_str(render("s''udo r\"\"m"), "[sudo] [rm]", "glued quotes");
	is_str(render("$'\\x72\\x6d' -rf"), "[rm] [-rf]", "ANSI-C hex");
	is_str(render("$'\\162\\155'"), "[rm]", "ANSI-C octal");
	is_str(render("$'\\u0072m'"), "[rm]", "ANSI-C unicode");
	is_str(render("echo \"a\\\"b\""), "[echo] [a\"b]", "escaped quote");
	is_str(render("\\git status"), "[git] [status]", "backslash name");
	is_str(render("ec\\\nho hi"), "[echo] [hi]", "line continuation");
	ok((flags0("$'\\x72m'", 0) & SH_W_LITERAL) != 0, "ANSI-C word is literal");
	ok((flags0("$x", 0) & SH_W_LITERAL) == 0, "$x is not literal");
	is_str(render("cat $HOME/a ${HOME}b \"$X\" ${X:-y} $1 ${#x}"),
	    "[cat] [$^HOME$/a] [$^HOME$b] [$X$] [$^X-=y$] [$^?$] [$^#$]",
	    "variable markers");
	is_str(render("echo ${x%y} \"${!x}\" ${x:?e} ${x/a/b}"),
	    "[echo] [$^!$] [$!$] [$^x-$] [$^!$]", "operators: markers");
	ok(!parses("echo $'\\x01'"), "$'\\x01' would forge a marker");
	ok(!parses("echo \x01"), "a raw \\x01 byte is refused");
	ok((flags0("${IFS}", 0) & SH_W_LITERAL) == 0, "${IFS} is not literal");
	ok((flags0("r$IFS'm'", 0) & SH_W_LITERAL) == 0, "$IFS trick not literal");
	ok((flags0("$(echo sudo)", 0) & SH_W_SUBST) != 0, "$(...) flagged");
	ok((flags0("*.c", 0) & SH_W_GLOB) != 0, "glob flagged");
	ok((flags0("'*.c'", 0) & SH_W_LITERAL) != 0, "quoted glob is literal");
	ok((flags0("{rm,-rf,/}", 0) & SH_W_LITERAL) == 0, "brace expansion");
	ok((flags0("{}", 0) & SH_W_LITERAL) != 0, "{} is literal");
	ok((flags0("FOO=1 ls", 0) & SH_W_ASSIGN) != 0, "assignment");
	ok((flags0("'FOO=1' ls", 0) & SH_W_ASSIGN) == 0, "quoted name: no assign");
	ok((flags0("~/x", 0) & SH_W_TILDE) != 0, "tilde");
	/* substitutions are parsed */
	is_str(render("echo $(rm -rf x)"), "[rm] [-rf] [x] ; [echo] []",
	    "$( ) inside");
	is_str(render("echo `rm x`"), "[rm] [x] ; [echo] []", "backticks");
	is_str(render("echo \"$(whoami) `id`\""), "[whoami] ; [id] ; [echo] [ ]",
	    "substitutions inside double quotes");
	is_str(render("diff <(ls a) >(cat)"), "[ls] [a] ; [cat] ; [diff] [] []",
	    "process substitution");
	is_str(render("echo $(echo $(echo deep))"),
	    "[echo] [deep] ; [echo] [] ; [echo] []", "nested $( )");
	is_str(render("x=${a:-$(rm y)}"), "[rm] [y] ; [x=$^a-$]", "$( ) inside ${ }");
	/* redirections */
	is_str(render("ls > out 2>&1"), "[ls] R1:out R5:1", "redir and dup");
	is_str(render("ls >>log 2>err <in"), "[ls] R2:log R1:err R0:in",
	    "append, fd, input");
	is_str(render("cmd &> all"), "[cmd] R6:all", "&>");
	is_str(render("cmd &>> all"), "[cmd] R7:all", "&>>");
	is_str(render("cmd >| f"), "[cmd] R3:f", ">|");
	is_str(render("cat <<< 'hi'"), "[cat] R9:hi", "here-string");
	is_str(render("cat > notes.md <<'EOF'\nhello $(rm x)\nEOF"),
	    "[cat] R1:notes.md R8:EOF", "quoted here-doc body is data");
	is_str(render("cat <<EOF\nhi $(rm x) `id` ${y}\nEOF"),
	    "[cat] R8:EOF ; [rm] [x] ; [id]", "unquoted here-doc: substitutions run");
	is_str(render("git commit -m \"$(cat <<'EOF'\nmsg\n\nEOF\n)\""),
	    "[cat] R8:EOF ; [git] [commit] [-m] []", "commit message idiom");
	is_str(render("exec 3>&- >& /dev/tcp/h/1"), "[exec] R5:- R6:/dev/tcp/h/1",
	    ">& FILE");
	is_str(render("[[ a < b ]]"), "[[[] [a] [<] [b] []]]", "[[ ]] comparisons");
	/* failures */
	ok(!parses("echo 'unclosed"), "unclosed single quote");
	ok(!parses("echo \"unclosed"), "unclosed double quote");
	ok(!parses("echo $(unclosed"), "unclosed $(");
	ok(!parses("echo `unclosed"), "unclosed backtick");
	ok(!parses("a &&"), "dangling &&");
	ok(!parses("| a"), "leading pipe");
	ok(!parses("f() { rm x; }"), "function definition");
	ok(!parses("case x in a) ls;; esac"), "case");
	{
		struct sh_parse p;
		const char nul[] = "ls\0rm";

		ok(sh_parse(nul, sizeof(nul) - 1, 0, &p) < 0, "NUL byte refused");
		sh_parse_free(&p);
	}
	ok(!parses("cat <<EOF\nno end"), "unclosed here-doc");
	is_int(parses("true"), 1, "true parses");
	return tap_done();
}
