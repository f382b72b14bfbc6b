#!/bin/sh
# embed.sh OUTPUT.c SRCDIR FILE...
#	Write a C source holding each FILE (a path under SRCDIR, in flink/)
#	as a string, named by its path below flink/, in the order given: the
#	pom and the Java support classes that --export-flink writes out
#	(runtime/export/flink_files.h).
set -e
out=$1 srcdir=$2
shift 2
{
	echo "/* Made by flink/embed.sh from flink/: do not edit. */"
	echo '#include "config.h"'
	echo '#include "runtime/export/flink_files.h"'
	echo 'const struct wm_export_file wm_export_flink_files[] = {'
	for f in "$@"; do
		printf '\t{"%s",\n' "${f#flink/}"
		# Every line as a literal: backslash and quote escaped, the
		# line end kept; a file without a last line end gets one.
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t "/' \
			-e 's/$/\\n"/' "$srcdir/$f"
		printf '\t},\n'
	done
	echo '};'
	echo "const size_t wm_export_flink_n_files = $#;"
} >"$out.tmp"
mv "$out.tmp" "$out"
