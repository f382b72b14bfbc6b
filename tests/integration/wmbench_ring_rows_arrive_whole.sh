#!/bin/sh
# wmbench ring's rows variant sends rows of a Nexmark bid's 93 bytes of
# fields (a head and four parts each, ipc/frame.h) between two processes
# and checks every one arrives whole and in order (its number in its
# head and in its first bytes: a row lost, torn or out of order fails
# the benchmark with 70), and prints its rows a microsecond beside the
# batched records'. Tiny sizes: this checks that the benchmark works,
# never how fast anything is.
. "$srcdir/tests/lib/lib.sh"

expect_status 0 timeout 120 "$WMBENCH" ring -v rows -v batched -r 1 -t 50
positive 'bench=ring impl=wmrun variant=rows metric=mrec_per_s'
positive 'bench=ring impl=wmrun variant=batched metric=mrec_per_s'
expect_status 64 "$WMBENCH" ring -v columns
expect_line 'unrecognized variant "columns"' "$scratch/err"
exit 0
