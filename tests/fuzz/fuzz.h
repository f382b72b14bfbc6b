/*
 * fuzz.h
 *	What the libFuzzer harnesses of tests/fuzz share.
 */
#ifndef WM_TESTS_FUZZ_FUZZ_H
#define WM_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The lines of an input, counting a last one without its end: the largest
 * line number a message about it may name. Lines end as lib/lines.h
 * ends them: "\n", "\r\n" or a lone "\r". */
static inline long
fuzz_lines(const uint8_t *data, size_t size)
{
	long n = 1;

	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n' ||
		    (data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n')))
			n++;
	return n;
}

#endif /* WM_TESTS_FUZZ_FUZZ_H */
