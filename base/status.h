/*
 * status.h
 *	Watermark status of a stream (Flink's WatermarkStatus): the one word
 *	of the vocabulary that the transport checks as well as carries (a
 *	STATUS frame's argument, ipc/frame.h).
 */
#ifndef WM_BASE_STATUS_H
#define WM_BASE_STATUS_H

/* Values are part of the frame format; do not renumber. */
enum wm_status {
	WM_STATUS_ACTIVE = 0,
	WM_STATUS_IDLE = 1,
};

#endif /* WM_BASE_STATUS_H */
