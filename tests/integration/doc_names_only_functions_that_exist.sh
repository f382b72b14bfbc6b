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

# What the sources define or declare, one name a line.
while IFS= read -r f; do
	case $f in
	*.c | *.h)
		# A definition (the house puts the name at the start of a
		# line), a prototype or a one-line definition (at file scope:
		# the line starts with its type), a callback member, a macro.
		sed -nE \
			-e 's/^([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' \
			-e 's/^[A-Za-z_][^=;(]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' \
			-e 's/^#[[:space:]]*define[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' \
			"$f"
		grep -oE '\(\*[A-Za-z_][A-Za-z0-9_]*\)\(' "$f" | tr -d '(*)'
		;;
	*.java)
		# A method: its type words, then its name and '(', no ';'.
		sed -nE 's/^[[:space:]]*[A-Za-z_@][]A-Za-z0-9_<>,?.[ ]*[[:space:]]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\([^;]*$/\1/p' "$f"
		;;
	*)
		sed -nE 's/^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(\)[[:space:]]*\{?.*/\1/p' "$f"
		;;
	esac
done <"$scratch/sources" >"$scratch/defined.all"

# A template (operators/hash_table.h, binary_heap.h) defines its functions
# as WM_HT_NAME(lookup)(...); a file that sets WM_HT_PREFIX to state_table
# and includes it defines state_table_lookup() and the rest.
grep -E '\.[ch]$' "$scratch/sources" | while IFS= read -r f; do
	sed -nE 's/^WM_([A-Z]+)_NAME\(([a-z_]+)\)\(.*/T \1 \2/p' "$f"
	sed -nE 's/^#[[:space:]]*define[[:space:]]+WM_([A-Z]+)_PREFIX[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/P \1 \2/p' "$f"
done | awk '$1 == "T" { fn[$2] = fn[$2] " " $3 }
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
for d in "$top"/doc/*.md "$top/README.md" "$top/HACKING.md"; do
	grep -n -o '`[^`]*`' "$d" |
		while IFS= read -r span; do
			line=${span%%:*}
			printf '%s\n' "${span#*:}" |
				grep -oE '[A-Za-z_][A-Za-z0-9_.]*\(\)' |
				sed "s|^|${d#"$top"/}:$line: |"
		done
done >"$scratch/named"
[ -s "$scratch/named" ] || fail "no \`name()\` found in the documents"

missing=0
while IFS= read -r entry; do
	call=${entry##* }
	name=${call%"()"}
	# Class.method(): the project's Java method, or one of Flink's
	# listed as written.
	grep -qxF -- "$name" "$scratch/allowed" && continue
	grep -qxF -- "${name##*.}" "$scratch/defined" && continue
	echo "${entry% *} \"$call\" is defined nowhere in the tree" >&2
	missing=$((missing + 1))
done <"$scratch/named"
[ "$missing" -eq 0 ] || fail "$missing name(s) in the documents name no function of the tree"
