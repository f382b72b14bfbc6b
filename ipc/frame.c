/*
 * frame.c
 *	Names of frame kinds (validation is inline, in frame.h).
 */
#include "config.h"

#include "ipc/frame.h"

const char *
wm_frame_kind_name(enum wm_frame_kind kind)
{
	switch (kind) {
	case WM_FRAME_RECORD:
		return "RECORD";
	case WM_FRAME_WATERMARK:
		return "WATERMARK";
	case WM_FRAME_STATUS:
		return "STATUS";
	case WM_FRAME_END:
		return "END";
	case WM_FRAME_BARRIER:
		return "BARRIER";
	case WM_FRAME_ROW:
		return "ROW";
	case WM_FRAME_ROW_PART:
		return "ROW_PART";
	}
	return "unknown";
}
