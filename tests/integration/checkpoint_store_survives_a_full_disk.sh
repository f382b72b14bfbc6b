#!/bin/sh
# A checkpoint that fills the disk fails, naming the file and "No space
# left on device", and leaves nothing of itself; the previous complete
# checkpoint is still the latest, every byte of it; and once there is room
# again the next checkpoint completes and replaces it. Whether the disk
# fills in a blob or in the manifest written last, the outcome is the same.
#
# A real full disk: a small tmpfs, which only root may mount.
. "$srcdir/tests/lib/lib.sh"

: "${CHECKPOINT_TOOL:=./tests/tools/checkpoint_tool}"
small="$scratch/small"
mkdir "$small"
trap 'umount "$small" 2>/dev/null; rm -rf "$scratch"' EXIT
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: mounting the small tmpfs this test fills needs root"
	exit 77
fi
mount -t tmpfs -o size=256k,mode=0700 wmtest "$small" ||
	fail "could not mount a 256 KiB tmpfs on $small"
dir="$small/ckpt"

# latest ID -- checkpoint ID is the newest complete one, its bytes whole,
# and no other checkpoint or temporary file is left beside it.
latest() {
	expect_status 0 "$CHECKPOINT_TOOL" latest "$dir" 4
	expect_line "^latest $1\$" "$scratch/out"
	left=$(cd "$dir" && ls -A | tr '\n' ' ')
	[ "$left" = "chk-$1 " ] || fail "after checkpoint $1: $dir holds $left"
	left=$(ls -A "$dir/chk-$1" | tr '\n' ' ')
	[ "$left" = "_metadata subtask-0 subtask-1 subtask-2 subtask-3 " ] ||
		fail "chk-$1 holds $left"
}

# Four blobs of 40 KiB: 160 KiB, which fits once but not twice.
expect_status 0 "$CHECKPOINT_TOOL" write "$dir" 1 4 40960
latest 1
expect_status 74 "$CHECKPOINT_TOOL" write "$dir" 2 4 40960
expect_line "^checkpoint_tool: could not write checkpoint file \"$dir/chk-2/subtask-[0-9]\": No space left on device\$" "$scratch/err"
latest 1

# Room for the blobs of 4 KiB, a page each, but not for the manifest: the
# rest of the disk taken by a file.
free=$(df -B 1 --output=avail "$small" | tail -n 1)
head -c $((free - 4 * 4096)) /dev/zero >"$small/filler" ||
	fail "could not fill $small"
expect_status 74 "$CHECKPOINT_TOOL" write "$dir" 2 4 4096
expect_line "^checkpoint_tool: could not write checkpoint file \"$dir/chk-2/_metadata\": No space left on device\$" "$scratch/err"
latest 1

# Room again for one of 64 KiB beside the first: it completes, and the
# first goes.
rm "$small/filler"
expect_status 0 "$CHECKPOINT_TOOL" write "$dir" 3 4 16384
expect_line '^checkpoint 3: [0-9]+ bytes written, 1 removed$' "$scratch/out"
latest 3
echo ok
