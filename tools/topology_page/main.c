/*
 * main.c
 *	topology_page: prints wmrun-topology(5), the reference of
 *	topology.conf, as roff on standard output, from the parser's own
 *	key table (runtime/conf/key_table.h). Run by the build (Makefile.am,
 *	"wmrun-topology.5:"), not installed: the page is.
 *
 * Everything printed from the table goes through roff_text(), which
 * escapes what roff would read as requests or escapes, so the table's
 * prose needs no roff of its own. The prose written here is about the
 * file's syntax (runtime/conf/ini.h) and the command line's --set.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/key_table.h"

/*
 * s as roff text in the current font: a backslash is printed as "\e", a
 * hyphen as "\-" (keys and values are typed as they are shown, and "\-"
 * is the ASCII hyphen-minus where "-" may become a typographic hyphen),
 * and a '.' or '\'' that would start a line is guarded by "\&" so that it
 * is not read as a request. `line_start`: whether s begins a line.
 */
static void
roff_text(FILE *f, const char *s, bool line_start)
{
	for (; *s != '\0'; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

/* A line of the table's prose as a sentence: capitalised, with a full
 * stop, on a line of its own. */
static void
sentence(FILE *f, const char *s)
{
	char first[2] = {(char)toupper((unsigned char)s[0]), '\0'};

	roff_text(f, first, true);
	roff_text(f, s + 1, false);
	fputs(".\n", f);
}

/* A labelled line of a key's paragraph: "Label: text". */
static void
field(FILE *f, const char *label, const char *text)
{
	fprintf(f, ".br\n\\fI%s:\\fR ", label);
	roff_text(f, text, false);
	fputc('\n', f);
}

/* The example, "key = value", after the keys it needs ("a = 1; b = 2"),
 * one a line. */
static void
example(FILE *f, const struct wm_key_table_entry *k)
{
	/* Indented by blanks, as .RS counts from the section's margin. */
	fputs(".br\n\\fIExample:\\fR\n.nf\n", f);
	for (const char *p = k->needs; *p != '\0';) {
		const char *end = strstr(p, "; ");
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		fputs("    ", f);
		roff_text(f, line, false);
		fputc('\n', f);
		p += len + (end != NULL ? 2 : 0);
	}
	fputs("    ", f);
	roff_text(f, k->name, false);
	fputs(" = ", f);
	roff_text(f, k->example, false);
	fputs("\n.fi\n", f);
}

static void
section(FILE *f, const struct wm_key_table_section *s)
{
	bool named = s->kind[0] != 'j'; /* every stage has a name; [job] not */

	fprintf(f, ".SS [%s%s]\n", s->kind, named ? " \\fINAME\\fR" : "");
	sentence(f, s->about);
	for (size_t i = 0; i < s->n_keys; i++) {
		const struct wm_key_table_entry *k = &s->keys[i];

		fputs(".TP\n\\fB", f);
		roff_text(f, k->name, false);
		fputs("\\fR\n", f);
		sentence(f, k->about);
		field(f, "Value", k->units);
		field(f, "Default", k->fallback);
		field(f, "Flink", k->flink);
		if (k->use == WM_KEY_GENERATOR)
			field(f, "Only", "a source that generates its records");
		else if (k->use == WM_KEY_REPLAY)
			field(f, "Only", "a source that replays a trace");
		else if (k->use == WM_KEY_NEXMARK)
			field(f, "Only",
			      "a source that makes a Nexmark stream (generator "
			      "= nexmark)");
		example(f, k);
	}
}

static const char head[] =
	".TH WMRUN\\-TOPOLOGY 5 \"\" \"wmrun " PACKAGE_VERSION
	"\" \"File Formats\"\n"
	/* Keys and values are typed as shown: never hyphenated. */
	".nh\n"
	".ad l\n"
	".SH NAME\n"
	"wmrun\\-topology \\- the topology file of wmrun: stages, keys, "
	"defaults and their Flink equivalents\n"
	".SH SYNOPSIS\n"
	".nf\n"
	"[job]\n"
	"\\fIkey\\fR = \\fIvalue\\fR\n"
	"[global]\n"
	"[source \\fINAME\\fR]\n"
	"[keyby \\fINAME\\fR]\n"
	"[window \\fINAME\\fR]\n"
	"[join \\fINAME\\fR]\n"
	"[sink \\fINAME\\fR]\n"
	".fi\n"
	".SH DESCRIPTION\n"
	"A topology file describes one job for\n"
	".BR wmrun (1):\n"
	"its sources, the stages that read them and the sinks that write "
	"their results, each a section of INI keys.\n"
	"Every key of every section is listed below with its kind of value, "
	"the default the parser applies when it is not given, its "
	"counterpart in Apache Flink and an example; the list is printed "
	"from the table the parser checks keys against, so it names every "
	"key the parser accepts.\n"
	".PP\n"
	"A section header is a kind and, for a stage, its name: "
	"\\fB[source clicks]\\fR, or \\fB[source \"my clicks\"]\\fR for a "
	"name with blanks.\n"
	"Each stage but a source names the stages it reads "
	"(\\fBinput\\fR, a join's \\fBleft\\fR and \\fBright\\fR).\n"
	"\\fB[job]\\fR holds the keys of the job as a whole; \\fB[global]\\fR "
	"gives a default for any stage key, which a stage's own section "
	"overrides, and which stages that do not read it ignore.\n"
	".PP\n"
	"A line is \\fIkey\\fR = \\fIvalue\\fR, a section header, or a "
	"comment: a line whose first non-blank character is \\fB#\\fR or "
	"\\fB;\\fR.\n"
	"A \\fB#\\fR after a blank ends an unquoted value; a value in double "
	"quotes keeps \\fB#\\fR, \\fB;\\fR and its outer blanks, with "
	"\\fB\\e\"\\fR and \\fB\\e\\e\\fR as its only escapes.\n"
	"\\fB${\\fR\\fINAME\\fR\\fB}\\fR in a value is the environment "
	"variable (an error if it is unset), "
	"\\fB${\\fR\\fINAME\\fR\\fB:\\-\\fR\\fIDEFAULT\\fR\\fB}\\fR the "
	"default when it is unset or empty, and \\fB$$\\fR one \\fB$\\fR.\n"
	"A key appears once in a section, but for the load shapes of a "
	"generated source (\\fBskew\\fR, \\fBsilence\\fR, \\fBburst\\fR, "
	"\\fBoutage\\fR, ...), which add up.\n"
	".PP\n"
	"Durations are a whole number and a unit, \\fBms\\fR, \\fBs\\fR, "
	"\\fBmin\\fR, \\fBh\\fR or \\fBd\\fR (none: milliseconds), "
	"as \\fB200 ms\\fR or \\fB10 min\\fR.\n"
	"Counts take the suffixes \\fBk\\fR, \\fBM\\fR and \\fBG\\fR, "
	"as \\fB10k\\fR.\n"
	"A rate is records per second of each partition, a count over a "
	"duration unit, as \\fB1000/s\\fR or \\fB2.5k/min\\fR, or "
	"\\fBunlimited\\fR.\n"
	"Sizes are in bytes, their units 1024\\-based, as \\fB128 KiB\\fR.\n"
	"Flags are \\fBtrue\\fR or \\fBfalse\\fR (also yes, no, on, off, "
	"1, 0).\n"
	".PP\n"
	"\\fBwmrun \\-\\-set\\fR \\fISECTION\\fR\\fB.\\fR\\fIKEY\\fR\\fB=\\fR"
	"\\fIVALUE\\fR sets a key for one run as if the file said so, "
	"held to the same rules; \\fISECTION\\fR is \\fBjob\\fR, "
	"\\fBglobal\\fR or a stage's name, and the last \\fB\\-\\-set\\fR of a "
	"key wins.\n"
	".PP\n"
	"Every error names the file, line and column, and an unknown key "
	"gets the closest known one as a suggestion.\n"
	"A key that the section's other keys make meaningless is refused "
	"rather than ignored: a generator's key on a source that replays a "
	"trace, \\fBslide\\fR on a tumbling window.\n"
	"A source's \\fBkafka.\\fR\\fINAME\\fR keys with a dot in "
	"\\fINAME\\fR (other than those listed) are Kafka client properties, "
	"passed to librdkafka, which checks them.\n"
	"\\fBwmrun \\-\\-check\\fR \\fIFILE\\fR checks a topology without "
	"running it.\n"
	".SH KEYS\n";

static const char tail[] = ".SH SEE ALSO\n"
			   ".BR wmrun (1)\n";

int
main(void)
{
	size_t n;
	const struct wm_key_table_section *s = wm_key_table_sections(&n);

	fputs(head, stdout);
	for (size_t i = 0; i < n; i++)
		section(stdout, &s[i]);
	fputs(tail, stdout);
	return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_SUCCESS
						      : EXIT_FAILURE;
}
