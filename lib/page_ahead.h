/*
 * page_ahead.h
 *	The pages of a large array faulted in on a thread of their own,
 *	ahead of the one thread that fills the array from its start.
 *
 * Why: a page of fresh anonymous memory costs its first writer a fault
 * (the trap, zeroing, the memory cgroup's charge, the LRU lists): about
 * a microsecond a 4 KiB page on the two-vCPU machine, 7 to 9 ns of every
 * 32-byte record a trace reader stores, a third of its time. Huge pages
 * would take most of that away but stall their first user while the
 * kernel finds or compacts 2 MiB. A second thread asking the kernel to
 * populate the pages (MADV_POPULATE_WRITE, Linux 5.14) moves that work
 * off the writer's path, onto a core that is idle before a job starts.
 *
 * The populating never writes the array's bytes, so the writer may
 * overtake it without harm: a page it reaches first it faults in itself.
 * The thread stays at most `lead` bytes ahead of what the writer said it
 * wrote, and sleeps on a condition variable when it is there: it never
 * spins, and never populates more than `lead` bytes the writer does not
 * use.
 */
#ifndef WM_LIB_PAGE_AHEAD_H
#define WM_LIB_PAGE_AHEAD_H

#include <stddef.h>

struct wm_page_ahead;

/*
 * Populate [base, base + len) (both in whole pages, an anonymous private
 * writable mapping that stays mapped until wm_page_ahead_stop()) ahead
 * of its writer, at most `lead` bytes ahead of it. NULL when no thread
 * could be started: the writer then faults its pages itself, as it would
 * anyway where the kernel lacks MADV_POPULATE_WRITE (the thread ends at
 * its first refusal).
 */
struct wm_page_ahead *wm_page_ahead_start(void *base, size_t len, size_t lead);

/* The writer has written the first `written` bytes. NULL: nothing. */
void wm_page_ahead_at(struct wm_page_ahead *pa, size_t written);

/* Stop the thread, wait for it, and free pa (NULL: nothing). The mapping
 * may be moved or unmapped after this only. */
void wm_page_ahead_stop(struct wm_page_ahead *pa);

#endif /* WM_LIB_PAGE_AHEAD_H */
