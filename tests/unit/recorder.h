/*
 * recorder.h
 *	A struct wm_output for tests that writes what it receives as text:
 *	"W(12) IDLE ACTIVE W(MAX)", so a table row can state a whole expected
 *	output sequence in the notation of doc/semantics.md section 10.
 */
#ifndef WM_TESTS_UNIT_RECORDER_H
#define WM_TESTS_UNIT_RECORDER_H

#include "operators/output.h"

struct recorder {
	struct wm_output out;
	char text[8192];
	size_t len;
};

void recorder_init(struct recorder *r);

/* Record a note of the test's own ("rec100" for a record) in sequence. */
void recorder_note(struct recorder *r, const char *note);

/* What was recorded since the last take ("" if nothing); resets it. The
 * string stays valid until the next take. */
const char *recorder_take(struct recorder *r);

#endif /* WM_TESTS_UNIT_RECORDER_H */
