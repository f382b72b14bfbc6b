/*
 * frame.c
 *	Validation and names of frame kinds.
 */
#include "config.h"

#include "ipc/frame.h"

bool
wm_frame_valid(enum wm_frame_kind kind, uint32_t arg)
{
	switch (kind) {
	case WM_FRAME_RECORD:
	case WM_FRAME_BARRIER:
		return true;
	case WM_FRAME_WATERMARK:
		return arg == 0;
	case WM_FRAME_STATUS:
		return arg == WM_STATUS_ACTIVE || arg == WM_STATUS_IDLE;
	case WM_FRAME_END:
		return arg == WM_END_DRAIN || arg == WM_END_STOP;
	}
	return false;
}

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
	}
	return "unknown";
}
