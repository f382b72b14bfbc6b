#!/bin/sh
# Every `name()` the documents write in backquotes (doc/*.md, README.md,
# HACKING.md) is defined or declared by a source of the tree: a C function
# (a definition, a prototype, a member of a struct of callbacks), a C
# macro, a shell function or a Java method. A function renamed or removed
# leaves its old name in the prose; this names each such one. The names
# that are not the project's (libc, POSIX, librdkafka, liburcu, Flink's
# Java methods) are listed in doc_names_outside_the_tree.txt.
. "${srcdir:-.}/tests/lib/lib.sh"

top=$srcdir
allow="$srcdir/tests/lib/doc_names_outside_the_tree.txt"

# The sources, wherever a build directory or a checkout's .git lies.
find "$top" \( -name .git -o -name '_build*' -o -name autom4te.cache \) -prune \
	-o -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \
	-o -name '*.java' -o -name bootstrap -o -path '*/.ci/*' \) -print \
	>"$scratch/sources" || fail "could not list the sources of $top"

# What the sources define or declare, one name a line: each kind of
# source read by one sed (or grep) over all of its files, not a process a
# file (the test took 21 s that way).
# of_kind [-v] ERE: the sources whose names match (-v: do not), NUL-ended.
of_kind() {
	grep -E "$@" "$scratch/sources" | tr '\n' '\0'
}
{
	# A definition (the house puts the name at the start of a line), a
	# prototype or a one-line definition (at file scope: the line starts
	# with its type), a callback member, a macro.
	of_kind '\.[ch]$' | xargs -0 -r sed -nE \
		-e 's/^([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' \
		-e 's/^[A-Za-z_][^=;(]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' \
		-e 's/^#[[:space:]]*define[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p'
	of_kind '\.[ch]$' | xargs -0 -r grep -ohE '\(\*[A-Za-z_][A-Za-z0-9_]*\)\(' | tr -d '(*)'
	# A Java method: its type words, then its name and '(', no ';'.
	of_kind '\.java$' | xargs -0 -r sed -nE \
		's/^[[:space:]]*[A-Za-z_@][]A-Za-z0-9_<>,?.[ ]*[[:space:]]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\([^;]*$/\1/p'
	# A shell function.
	of_kind -v '\.([ch]|java)$' | xargs -0 -r sed -nE \
		's/^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(\)[[:space:]]*\{?.*/\1/p'
} >"$scratch/defined.all"

# A template (operators/hash_table.h, binary_heap.h) defines its functions
# as WM_HT_NAME(lookup)(...); a file that sets WM_HT_PREFIX to state_table
# and includes it defines state_table_lookup() and the rest.
of_kind '\.[ch]$' | xargs -0 -r sed -nE \
	-e 's/^WM_([A-Z]+)_NAME\(([a-z_]+)\)\(.*/T \1 \2/p' \
	-e 's/^#[[:space:]]*define[[:space:]]+WM_([A-Z]+)_PREFIX[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/P \1 \2/p' \
	| awk '$1 == "T" { fn[$2] = fn[$2] " " $3 }
	$1 == "P" { pre[$2] = pre[$2] " " $3 }
	END { for (t in pre) { np = split(pre[t], p); nf = split(fn[t], f)
		for (i = 1; i <= np; i++) for (j = 1; j <= nf; j++)
			print p[i] "_" f[j] } }' >>"$scratch/defined.all"
sort -u "$scratch/defined.all" >"$scratch/defined"
[ -s "$scratch/defined" ] || fail "no definitions found under $top"

# The names outside the tree: one a line, '#' comments.
sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$allow" | sort -u \
	>"$scratch/allowed" || fail "could not read $allow"

# `name()` in backquotes, with its file and line.
awk -v top="$top/" '{
	rest = $0
	while (match(rest, /`[^`]*`/)) {
		span = substr(rest, RSTART, RLENGTH)
		rest = substr(rest, RSTART + RLENGTH)
		while (match(span, /[A-Za-z_][A-Za-z0-9_.]*\(\)/)) {
			print substr(FILENAME, length(top) + 1) ":" FNR ": " \
				substr(span, RSTART, RLENGTH)
			span = substr(span, RSTART + RLENGTH)
		}
	}
}' "$top"/doc/*.md "$top/README.md" "$top/HACKING.md" >"$scratch/named"
[ -s "$scratch/named" ] || fail "no \`name()\` found in the documents"

# Class.method(): the project's Java method, or one of Flink's listed as
# written.
awk -v allowed="$scratch/allowed" -v defined="$scratch/defined" '
BEGIN {
	while ((getline name <allowed) > 0) ok[name] = 1
	while ((getline name <defined) > 0) def[name] = 1
}
{
	call = $NF
	name = substr(call, 1, length(call) - 2)
	method = name
	sub(/.*\./, "", method)
	if (name in ok || method in def) next
	sub(/ [^ ]*$/, "")
	print $0 " \"" call "\" is defined nowhere in the tree"
}' "$scratch/named" >"$scratch/missing"
cat "$scratch/missing" >&2
[ ! -s "$scratch/missing" ] ||
	fail "$(wc -l <"$scratch/missing") name(s) in the documents name no function of the tree"
