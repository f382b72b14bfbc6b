/*
 * crc32c.h
 *	CRC-32C (Castagnoli): the checksum of every checkpoint file.
 *
 * The polynomial 0x1EDC6F41, reflected (0x82F63B78), initial value and
 * final xor 0xFFFFFFFF, as iSCSI, ext4 and SSE4.2's crc32 instruction
 * compute it: crc32c("123456789") = 0xE3069283. It was chosen over zlib's
 * CRC-32 because it detects more errors in long blocks (its Hamming
 * distance stays 4 up to 2^31 bits, which covers any blob the store
 * takes) and because hardware computes it where speed would matter.
 *
 * SSE4.2's crc32 instruction where the processor has it, else a table
 * one byte a step: the table took five times as long as the write and
 * fsync of the same bytes, the instruction two fifths of it
 * (doc/performance.md section 9.19).
 */
#ifndef WM_RUNTIME_CHECKPOINT_CRC32C_H
#define WM_RUNTIME_CHECKPOINT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The checksum of nothing: where a running checksum starts. */
#define WM_CRC32C_INIT 0u

/*
 * The checksum of the bytes checksummed into `crc` so far followed by
 * `len` bytes at `buf`: wm_crc32c(wm_crc32c(0, a, n), b, m) is the
 * checksum of a then b. `buf` may be NULL when `len` is 0.
 */
uint32_t wm_crc32c(uint32_t crc, const void *buf, size_t len);

/* The same by the table alone, on any processor (for tests and
 * measurements: wm_crc32c() picks the fastest way). */
uint32_t wm_crc32c_portable(uint32_t crc, const void *buf, size_t len);

#endif /* WM_RUNTIME_CHECKPOINT_CRC32C_H */
