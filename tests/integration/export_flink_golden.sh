#!/bin/sh
# --export-flink writes, for each replay example, exactly the Job.java and
# traces of tests/golden/export_flink/EXAMPLE/ (the version as @VERSION@),
# and the support classes and pom of flink/ byte for byte: the export is
# stable and readable, and needs no source tree. A generated source is
# refused with exit 78, naming the option that will record it. After a
# deliberate change: make update-golden.
. "$srcdir/tests/integration/lib.sh"

golden="$srcdir/tests/golden/export_flink"
for example in replay_trace; do
	out="$scratch/$example"
	# The examples' traces are relative to the top of the source tree.
	(cd "$srcdir" && "$WMRUN" --export-flink "$out" \
		"examples/$example.conf") >"$scratch/out" 2>"$scratch/err" ||
		{ cat "$scratch/err" >&2; fail "exporting $example failed"; }
	want="$golden/$example"
	for f in "$out/src/main/java/wmrun/flink/Job.java" "$out"/data/*; do
		name=${f##*/}
		sed "s/wmrun $WM_VERSION --export-flink/wmrun @VERSION@ --export-flink/" \
			"$f" >"$scratch/got"
		if [ "${WM_UPDATE_GOLDEN:-}" = 1 ]; then
			cp "$scratch/got" "$want/$name"
			continue
		fi
		diff -u "$want/$name" "$scratch/got" ||
			fail "$example: $name differs from the golden file"
	done
	(cd "$out" && find . -type f | sort) >"$scratch/files"
	[ "$(grep -c . "$scratch/files")" -eq \
		"$(($(ls "$srcdir"/flink/src/main/java/wmrun/flink/*.java | wc -l) + 3))" ] ||
		fail "$example: unexpected files: $(cat "$scratch/files")"
	cmp "$srcdir/flink/pom.xml" "$out/pom.xml" || fail "pom.xml differs from flink/"
	for j in "$srcdir"/flink/src/main/java/wmrun/flink/*.java; do
		cmp "$j" "$out/src/main/java/wmrun/flink/${j##*/}" ||
			fail "${j##*/} differs from flink/"
	done
done

expect_status 78 "$WMRUN" --export-flink "$scratch/gen" "$srcdir/examples/late_data.conf"
expect_line 'late_data.conf:[0-9]+:[0-9]+: cannot export generated source "[^"]+": .*--record-trace' "$scratch/err"
[ ! -e "$scratch/gen" ] || fail "a refused export left files behind"
expect_status 64 "$WMRUN" --sim --export-flink "$scratch/x" "$srcdir/examples/replay_trace.conf"
exit 0
